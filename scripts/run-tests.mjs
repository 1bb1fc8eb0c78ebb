#!/usr/bin/env node
/**
 * Runs test files one at a time with node:test, as `node --test --test-concurrency=1` does, with a watchdog:
 * a file still running after TEST_FILE_TIMEOUT_MS (default 30 minutes) is killed and counts as timed out, and
 * each timed-out file is run once more at the end.
 *
 * Why: on Node 20, tsx's loader hooks run on a separate thread (module.register), and the module loader can
 * deadlock with it while a test file is still loading (nodejs/node#50948): the file's process then waits on
 * a futex forever, having started nothing. It is rare (one file in one of about fifty full runs), but without a
 * watchdog it hangs the whole run. A real hang hangs twice and still fails.
 *
 *   node --import tsx scripts/run-tests.mjs <file>...
 *
 * The children inherit this process's --import tsx. Exit code 1 when any file failed for good.
 */
import { run } from "node:test";
import { spec, tap } from "node:test/reporters";

const timeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 30 * 60_000);
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node --import tsx scripts/run-tests.mjs <test file>...");
  process.exit(2);
}

/** Runs the files; resolves to the files that failed, split into timed out and otherwise. */
function runFiles(list) {
  return new Promise((resolve, reject) => {
    const timedOut = new Set();
    const failed = new Set();
    const stream = run({ files: list, concurrency: 1, timeout: timeoutMs });
    stream.on("test:fail", (event) => {
      if (event.nesting !== 0 || event.todo) return;
      const kind = event.details?.error?.failureType;
      (kind === "testTimeoutFailure" ? timedOut : failed).add(event.file ?? event.name);
    });
    // As node --test: spec on a terminal, TAP otherwise (CI logs are read as TAP).
    const out = stream.compose(process.stdout.isTTY ? spec : tap);
    out.pipe(process.stdout, { end: false });
    out.on("end", () => resolve({ timedOut, failed }));
    out.on("error", reject);
  });
}

const first = await runFiles(files);
const failed = new Set(first.failed);
for (const f of first.timedOut) failed.delete(f);
if (first.timedOut.size > 0) {
  const again = [...first.timedOut];
  console.log(`# ${again.length} file(s) timed out after ${timeoutMs} ms; running them once more:`);
  for (const f of again) console.log(`#   ${f}`);
  const second = await runFiles(again);
  for (const f of [...second.failed, ...second.timedOut]) failed.add(f);
}
if (failed.size > 0) {
  console.log(`# failed: ${[...failed].join(", ")}`);
  process.exitCode = 1;
}
