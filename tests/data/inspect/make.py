"""Stores the JSON schema of Inspect's eval log (inspect_ai.log.EvalLog, the pydantic
model the package reads logs with) for tests/export.rs; tests never call Python.
Run in a scratch venv: pip install inspect-ai; python make.py"""
import json, os
import inspect_ai
from inspect_ai.log import EvalLog
schema = EvalLog.model_json_schema()
schema["$comment"] = f"inspect_ai {inspect_ai.__version__}: EvalLog.model_json_schema()"
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "eval-log.schema.json"), "w") as f:
    json.dump(schema, f, indent=1, sort_keys=True, ensure_ascii=False)
    f.write("\n")
