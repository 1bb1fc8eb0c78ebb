import assert from "node:assert/strict";
import { test } from "node:test";
import { ChromiumKeeper, findChromium, WORKER_DISABLED_FEATURES } from "../src/chromium.ts";
import { chromiumProcesses, listProcesses } from "../src/process-memory.ts";

test("the worker's Chromium keeps Playwright's disabled features and runs no address-bar renderer per context", async () => {
  const keeper = new ChromiumKeeper(findChromium()!, []);
  try {
    const browser = await keeper.browser();
    const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
    for (const c of contexts) await (await c.newPage()).setContent("<p>hi</p>");
    const marker = (keeper as unknown as { current: { marker: string } }).current.marker;
    const all = listProcesses();
    const ours = new Set(chromiumProcesses(marker, all));
    const mine = all.filter((p) => ours.has(p.pid));
    // The browser process is the one Playwright drives through its pipe: Chromium's crash handler also
    // carries the marker and no --type=, and comes first in /proc once pids have wrapped around.
    const main = mine.find(
      (p) => !p.cmdline.includes("--type=") && p.cmdline.includes("--remote-debugging-pipe"),
    );
    assert.ok(main, "the browser process is found by its marker");
    const lists = [...main.cmdline.matchAll(/--disable-features=(\S+)/g)].map((m) => m[1]!.split(","));
    assert.ok(lists.length >= 2, "Playwright's switch and ours");
    // Chromium keeps the last switch only: it must hold everything Playwright disabled, and ours.
    const last = new Set(lists.at(-1));
    for (const f of [...lists[0]!, ...WORKER_DISABLED_FEATURES])
      assert.ok(last.has(f), `${f} stays disabled`);
    assert.equal(
      mine.filter((p) => p.cmdline.includes("--top-chrome-webui")).length,
      0,
      "no WebUI renderer for the address bar",
    );
    assert.ok(
      mine.filter((p) => p.cmdline.includes("--type=renderer")).length >= 2,
      "the pages' renderers run",
    );
  } finally {
    await keeper.close();
  }
});
