"""Outside CI: reads `autoeval export` output with the readers users have.
pip install inspect-ai duckdb pyarrow datasets (a scratch venv), then
  python check.py DIR
where DIR holds eval/ (--format inspect), pq/ (--format parquet) and fl/ (--format
jsonl-flat) of the same runs. Prints what each reader sees; any schema error raises."""
import sys, time, resource
import duckdb, pyarrow.parquet as pq, datasets
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
import glob

d = sys.argv[1]
for f in sorted(glob.glob(f"{d}/eval/*.eval")):
    t = time.time()
    log = read_eval_log(f)
    print(f.split("/")[-1], log.status, len(log.samples), "samples;",
          "task_args shots", log.eval.task_args.get("shots"), "synthetic", log.eval.task_args.get("synthetic"),
          "; read in", round(time.time() - t, 1), "s, max RSS",
          resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, "MB")
    print("  summaries", len(read_eval_log_sample_summaries(f)))
con = duckdb.connect()
print(con.sql(f"""SELECT model, dataset, shots, prompt_hash[:8] AS ph, count(*) AS n,
       avg(passed::INT) AS a3, avg(compliant::INT) AS a2, avg(judge_agrees::INT) AS ja
FROM '{d}/pq/*.parquet' GROUP BY ALL ORDER BY a3 DESC"""))
print(con.sql(f"SELECT kind, count(*) FROM '{d}/pq/*.parquet', unnest(kinds) AS t(kind) GROUP BY kind ORDER BY 2 DESC LIMIT 5"))
print(con.sql(f"SELECT count(*), avg(passed::INT) FROM read_json('{d}/fl/*.jsonl')"))
for f in sorted(glob.glob(f"{d}/pq/*.parquet")):
    t = pq.read_table(f)
    print(f.split("/")[-1], t.num_rows, "rows;", t.schema.field("kinds").type, t.schema.field("bertscore_minilm").type)
for sub in ["fl", "pq"]:
    tr = datasets.load_dataset(f"{d}/{sub}")["train"]
    print("datasets", sub, tr.num_rows, tr.features["kinds"], tr.features["bertscore_minilm"], tr.features["judge_agrees"])
