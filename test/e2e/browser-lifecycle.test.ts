/**
 * The worker's Chromium over its life (issue 18 goal 5): a browser is recycled after a number of tasks
 * without failing a task in flight, and once the worker stops no Chromium process of it remains.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { descendantsOf, listProcesses } from "../../apps/browser/src/process-memory.ts";
import { startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

/** Chromium processes below this test process (the worker runs in it); other tests' browsers are not. */
function ourChromiums(): number[] {
  const all = listProcesses();
  const mine = new Set(descendantsOf(all, [process.pid]));
  return all
    .filter((p) => mine.has(p.pid) && p.pid !== process.pid && /chrom/i.test(p.name))
    .map((p) => p.pid);
}

test("recycling under load fails no task, and no Chromium process outlives the worker", async () => {
  const stack = await startStack({ slots: 2, jobs: false, worker: { recycleTasks: 3 } });
  let stopped = false;
  try {
    assert.ok(ourChromiums().length > 0, "the worker's Chromium runs below this process");
    // Ten scrapes, four at a time on two slots: browsers are retired while others' tasks are on them.
    const replies = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const r = await stack.post("/web/v1/scrape", {
          url: `${stack.site.url}/article?n=${i}`,
          formats: ["markdown", "links"],
        });
        return r;
      }),
    );
    for (const r of replies) {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.body.data.markdown.length > 0);
    }
    const recycled = (await stack.worker.metrics.chromiumRecycled.get()).values.reduce(
      (s, v) => s + v.value,
      0,
    );
    assert.ok(recycled >= 2, `browsers were recycled (${recycled})`);
    assert.equal(stack.worker.chromium.restarts, 0, "a recycle is not counted as a crash");
    const session = await stack.post("/web/v1/session", { url: `${stack.site.url}/form` });
    assert.equal(session.status, 200, JSON.stringify(session.body));
    // A session is open when the worker stops: stopping closes it and its browser too.
    await stack.stop();
    stopped = true;
    await waitFor(
      "no Chromium process to remain after the worker stopped",
      () => {
        assert.deepEqual(ourChromiums(), [], "Chromium processes left");
        return true;
      },
      10_000,
      50,
    );
  } finally {
    if (!stopped) await stack.stop();
  }
});
