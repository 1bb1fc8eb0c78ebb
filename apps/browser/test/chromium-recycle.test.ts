import assert from "node:assert/strict";
import { test } from "node:test";
import { ChromiumKeeper, findChromium } from "../src/chromium.ts";

const until = async (ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return ok();
};

test("a browser is recycled after its task count, without closing under a task or a context still open", async () => {
  const retired: string[] = [];
  const keeper = new ChromiumKeeper(
    findChromium()!,
    [],
    { onRetire: (_b, reason) => retired.push(reason) },
    { maxTasks: 3, maxPssBytes: 0 },
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
    assert.ok(await until(() => retired.length > 0));
    assert.deepEqual(retired, ["tasks"], "the third task ended: the browser is retired");

    const next = await keeper.lease();
    assert.notEqual(next.browser, first, "new work goes to a fresh browser");
    next.release();
    assert.equal(first.isConnected(), true, "the old browser stays while a task and a context are on it");
    long.release();
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(first.isConnected(), true, "a context still open keeps it");
    assert.equal(await page.textContent("p"), "still here");
    await session.close();
    assert.ok(await until(() => !first.isConnected()), "the old browser closes once its last context has");
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
    { maxTasks: 0, maxPssBytes: 1, checkEveryMs: 100 },
  );
  try {
    const first = await keeper.browser();
    assert.ok(await until(() => retired.length > 0));
    assert.equal(retired[0], "memory");
    assert.ok(await until(() => !first.isConnected()), "with nothing on it, the old browser closes");
    assert.notEqual(await keeper.browser(), first);
  } finally {
    await keeper.close();
  }
});
