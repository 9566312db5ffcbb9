"""Stores the JSON schemas of Inspect's eval log (inspect_ai.log.EvalLog, the pydantic
model the package reads logs with; its $defs hold EvalSample, the shape of a `.eval`
file's samples/*.json) and of EvalSampleSummary (summaries.json, _journal/summaries/*)
for tests/it/export.rs; tests never call Python.
Run in a scratch venv: pip install inspect-ai; python make.py"""
import json, os
import inspect_ai
from inspect_ai.log import EvalLog, EvalSampleSummary

here = os.path.dirname(os.path.abspath(__file__))
for name, model in [("eval-log", EvalLog), ("sample-summary", EvalSampleSummary)]:
    schema = model.model_json_schema()
    schema["$comment"] = f"inspect_ai {inspect_ai.__version__}: {model.__name__}.model_json_schema()"
    with open(os.path.join(here, f"{name}.schema.json"), "w") as f:
        json.dump(schema, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
