import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

/** Kill -9 the Chromium processes this test process started (the worker runs in-process). */
function killChromium(): void {
  execFileSync("pkill", ["-KILL", "-P", String(process.pid), "chromium"]);
}

describe("browser worker resilience", () => {
  let stack: Stack;
  /** The worker's busy slots, as its fleet_browser_slots_busy gauge says. */
  const busySlots = async () => (await stack.worker.metrics.slotsBusy.get()).values[0]?.value ?? 0;
  before(async () => {
    stack = await startStack({ slots: 1, env: { TASK_QUEUE_MAX: "1" } });
  });
  after(async () => stack?.stop());

  it("relaunches Chromium after it is killed and counts the restart", async () => {
    const first = await stack.post("/web/v1/scrape", { url: `${stack.site.url}/page2` });
    assert.equal(first.status, 200);
    killChromium();
    await waitFor("the worker to see Chromium die", () => stack.worker.chromium.restarts === 1, 10_000, 20);
    const again = await stack.post("/web/v1/scrape", { url: `${stack.site.url}/page2` });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.match(again.body.data.markdown, /Page Two/);
    const metrics = await (await fetch(stack.worker.metricsUrl!)).text();
    assert.match(metrics, /fleet_chromium_restarts_total 1/);
  });

  it("answers 429 with Retry-After when every slot is busy and the queue is full", async () => {
    const slow = stack.post("/web/v1/scrape", { url: `${stack.site.url}/slow?ms=1500` });
    await waitFor("the slow scrape to take the one slot", async () => (await busySlots()) === 1, 10_000, 20);
    const refused = await stack.post("/web/v1/scrape", { url: `${stack.site.url}/page2` });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, "no_capacity");
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.equal((await slow).status, 200);
  });

  it("finishes the task it holds when told to stop, then the api answers 503", async () => {
    const held = stack.post("/web/v1/scrape", { url: `${stack.site.url}/slow?ms=1000` });
    await waitFor("the slow scrape to take the one slot", async () => (await busySlots()) === 1, 10_000, 20);
    await stack.worker.stop();
    const done = await held;
    assert.equal(done.status, 200);
    assert.match(done.body.data.markdown, /Slow page done/);
    const none = await stack.post("/web/v1/scrape", { url: `${stack.site.url}/page2` });
    assert.equal(none.status, 503);
    assert.equal(none.body.error.code, "unavailable");
  });
});
