"""The Python anchors of the WCXB run: Trafilatura and rs-trafilatura, each with its default settings.

Protocol (JSON lines, one answer per request, in order):
  first line out: {"tools": {name: version}, "missing": {name: error}}
  in:  {"id": ..., "url": ..., "html": "..."}  (or "path" to a .html/.html.gz file instead of "html")
  out: {"id": ..., "results": {name: {"text": str, "ms": float, "pageType"?: str, "error"?: str}}}
Timings are around the extraction call only. A tool that throws gives empty text and its error.
Without stdin requests, file paths on the command line are extracted in turn.

  pip install trafilatura lxml_html_clean rs-trafilatura
"""

import gzip
import json
import os
import sys
import time
from importlib import metadata


def load_tools():
    tools, missing = {}, {}
    try:
        import trafilatura

        def run_trafilatura(html, url):
            # include_comments defaults to True in trafilatura; main content excludes them.
            text = trafilatura.extract(
                html, url=url, output_format="txt", include_comments=False, include_tables=True
            )
            return text or "", None

        tools["trafilatura"] = (metadata.version("trafilatura"), run_trafilatura)
    except Exception as e:  # noqa: BLE001
        missing["trafilatura"] = f"{type(e).__name__}: {e}"
    try:
        import rs_trafilatura

        def run_rs(html, url):
            result = rs_trafilatura.extract(html, url=url)
            return result.main_content or "", result.page_type

        tools["rs-trafilatura"] = (metadata.version("rs-trafilatura"), run_rs)
    except Exception as e:  # noqa: BLE001
        missing["rs-trafilatura"] = f"{type(e).__name__}: {e}"
    return tools, missing


def read_html(request):
    if "html" in request:
        return request["html"]
    path = request["path"]
    raw = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    return raw.decode("utf-8", errors="replace")


def extract_all(tools, request):
    html = read_html(request)
    url = request.get("url")
    results = {}
    for name, (_, run) in tools.items():
        started = time.perf_counter()
        try:
            text, page_type = run(html, url)
            error = None
        except KeyboardInterrupt:
            raise
        # A Rust panic surfaces as pyo3's PanicException, which derives from BaseException only.
        except BaseException as e:  # noqa: BLE001
            text, page_type, error = "", None, f"{type(e).__name__}: {e}"[:300]
        result = {"text": text, "ms": (time.perf_counter() - started) * 1000}
        if page_type:
            result["pageType"] = page_type
        if error:
            result["error"] = error
        results[name] = result
    return {"id": request.get("id"), "results": results}


def main():
    # The protocol owns the real stdout; anything a library prints goes to stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="replace")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(obj):
        out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        out.flush()

    tools, missing = load_tools()
    send({"tools": {name: version for name, (version, _) in tools.items()}, "missing": missing})
    if len(sys.argv) > 1:
        requests = ({"id": p, "path": p} for p in sys.argv[1:])
    else:
        sys.stdin.reconfigure(encoding="utf-8")
        requests = (json.loads(line) for line in sys.stdin if line.strip())
    for request in requests:
        send(extract_all(tools, request))


if __name__ == "__main__":
    main()
