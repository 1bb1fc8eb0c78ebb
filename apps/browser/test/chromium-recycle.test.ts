import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../../test/helpers/wait-for.ts";
import { ChromiumKeeper, findChromium } from "../src/chromium.ts";

/** How long a retired browser with nothing on it waits before closing; short, so the test need not wait 1 s. */
const GRACE_MS = 100;

test("a browser is recycled after its task count, without closing under a task or a context still open", async () => {
  const retired: string[] = [];
  const keeper = new ChromiumKeeper(
    findChromium()!,
    [],
    { onRetire: (_b, reason) => retired.push(reason) },
    { maxTasks: 3, maxPssBytes: 0, closeGraceMs: GRACE_MS },
  );
  try {
    const first = await keeper.browser();
    // A long task, and a session-like context that outlives every task.
    const long = await keeper.lease();
    const session = await first.newContext();
    const page = await session.newPage();
    await page.setContent("<p>still here</p>");
    assert.ok(keeper.currentPss() > 10 * 1024 * 1024, "the browser's PSS is read from its processes");
    for (let i = 0; i < 3; i++) (await keeper.lease()).release();
    await waitFor("the browser to be retired", () => retired.length > 0, 10_000, 20);
    assert.deepEqual(retired, ["tasks"], "the third task ended: the browser is retired");

    const next = await keeper.lease();
    assert.notEqual(next.browser, first, "new work goes to a fresh browser");
    next.release();
    assert.equal(first.isConnected(), true, "the old browser stays while a task and a context are on it");
    long.release();
    // Real time is the subject: with a context still open, the browser outlasts the close grace, here 3 times.
    await new Promise((r) => setTimeout(r, 3 * GRACE_MS));
    assert.equal(first.isConnected(), true, "a context still open keeps it");
    assert.equal(await page.textContent("p"), "still here");
    await session.close();
    await waitFor(
      "the old browser to close once its last context has",
      () => !first.isConnected(),
      10_000,
      20,
    );
    assert.equal(keeper.restarts, 0, "a recycle is not a crash");
    assert.equal(keeper.open(), 1);
  } finally {
    await keeper.close();
  }
});

test("a browser past the memory ceiling is recycled", async () => {
  const retired: string[] = [];
  const keeper = new ChromiumKeeper(
    findChromium()!,
    [],
    { onRetire: (_b, reason) => retired.push(reason) },
    // One byte: any running Chromium is past it.
    { maxTasks: 0, maxPssBytes: 1, checkEveryMs: 100, closeGraceMs: GRACE_MS },
  );
  try {
    const first = await keeper.browser();
    await waitFor("the browser to be retired", () => retired.length > 0, 10_000, 20);
    assert.equal(retired[0], "memory");
    await waitFor("the old browser, with nothing on it, to close", () => !first.isConnected(), 10_000, 20);
    assert.notEqual(await keeper.browser(), first);
  } finally {
    await keeper.close();
  }
});
