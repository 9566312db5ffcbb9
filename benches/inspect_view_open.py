"""Times Inspect's viewer opening each `.eval` log of a directory, in headless Chromium.

Not part of the tests or CI (they never call Python): a measuring tool for the
performance page. For each log it opens the viewer's page of the log and waits until
the sample list shows the first sample's target (read from the log's summaries.json),
then prints one JSON line: samples, bytes, seconds, whether the list appeared (within
10 minutes) and saves a screenshot in the current directory.

    python -m venv /tmp/iv && /tmp/iv/bin/pip install inspect-ai playwright
    apt-get install chromium          # or set CHROMIUM=path
    autoeval export --format inspect --out logs RUN
    /tmp/iv/bin/python benches/inspect_view_open.py logs 7575 [HOW_MANY_LOGS]
"""
import json, os, subprocess, sys, time, zipfile, pathlib, urllib.request
from playwright.sync_api import sync_playwright

logdir = pathlib.Path(sys.argv[1]).resolve()
port = int(sys.argv[2])
srv = subprocess.Popen([str(pathlib.Path(sys.executable).parent / "inspect"), "view", "--log-dir", str(logdir), "--port", str(port)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(120):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/logs", timeout=2); break
        except Exception:
            time.sleep(0.5)
    logs = sorted(logdir.glob("*.eval"))
    if len(sys.argv) > 3:
        step = max(1, len(logs) // int(sys.argv[3])); logs = logs[::step][: int(sys.argv[3])]
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox", "--js-flags=--max-old-space-size=4096"])
        for log in logs:
            with zipfile.ZipFile(log) as z:
                summ = json.loads(z.read("summaries.json"))
            n = len(summ)
            marker = str(summ[0].get("target") or "")[:40]
            page = b.new_page(viewport={"width": 1400, "height": 900})
            t0 = time.time()
            page.goto(f"http://127.0.0.1:{port}/#/logs/{log.name}")
            ok = False
            try:
                page.wait_for_function("m => document.body && document.body.innerText.includes(m)", arg=marker, timeout=600_000, polling=200)
                ok = True
            except Exception as e:
                err = str(e).splitlines()[0]
            dt = time.time() - t0
            if ok:
                page.screenshot(path=log.stem[-12:] + ".png")
            print(json.dumps({"log": log.name, "samples": n, "bytes": log.stat().st_size, "seconds": round(dt, 2), "sample_list_shown": ok}), flush=True)
            page.close()
        b.close()
finally:
    srv.terminate()
