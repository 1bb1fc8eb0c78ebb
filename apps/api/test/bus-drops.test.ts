import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { connectBus, startLocalNats } from "@browserfleet/bus";
import { BusDrops } from "../src/bus-drops.ts";

test("a request in flight learns at once that the bus connection dropped, not at its timeout", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fleet-drops-"));
  let nats = await startLocalNats({ dataDir: dir });
  const nc = await connectBus({ servers: nats.url, name: "drops-test" });
  try {
    const drops = new BusDrops(nc);
    // A request nobody answers in time, as an act whose message the dropped server held.
    nc.subscribe("act.nobody", { callback: () => {} });
    const answer = nc.request("act.nobody", "x", { timeout: 60_000 }).then(
      () => "answered",
      () => "timed out",
    );
    const waiting = new AbortController();
    const dropped = drops.next(waiting.signal).then(() => "dropped");
    // Another wait whose request ended before the drop (aborted) is not woken.
    const ended = new AbortController();
    let wokenAfterEnd = false;
    void drops.next(ended.signal).then(() => {
      wokenAfterEnd = true;
    });
    ended.abort();

    await nats.stop();
    // Woken by the drop, before the request's own timeout could end it.
    assert.equal(await Promise.race([answer, dropped]), "dropped");
    assert.equal(wokenAfterEnd, false);
    waiting.abort();
    nats = await startLocalNats({ dataDir: dir, port: nats.port });
  } finally {
    await nc.close();
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
