import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Counter, Registry } from "prom-client";
import { type ProbeState, serveProbes } from "../src/index.ts";

describe("serveProbes", () => {
  it("without a port there is no server (a program run without a metrics port)", async () => {
    assert.equal(await serveProbes({ port: undefined, registry: new Registry() }), undefined);
  });

  it("serves the registry's metrics, refreshed before each scrape, and a failed refresh still serves", async () => {
    const registry = new Registry();
    const scrapes = new Counter({ name: "test_refreshes_total", help: "refreshes", registers: [registry] });
    let fail = false;
    const probes = await serveProbes({
      port: 0,
      host: "127.0.0.1",
      registry,
      beforeMetrics: async () => {
        if (fail) throw new Error("the database blinked");
        scrapes.inc();
      },
    });
    try {
      const first = await fetch(probes.metricsUrl);
      assert.equal(first.status, 200);
      assert.match(first.headers.get("content-type") ?? "", /text\/plain/);
      assert.match(await first.text(), /test_refreshes_total 1/);
      fail = true;
      const second = await fetch(probes.metricsUrl);
      assert.equal(second.status, 200);
      assert.match(await second.text(), /test_refreshes_total 1/);
    } finally {
      await probes.close();
    }
  });

  it("answers /healthz and /readyz from the program's state, 503 with the reason when not ok", async () => {
    let health: ProbeState = { ok: true };
    const probes = await serveProbes({
      port: 0,
      host: "127.0.0.1",
      registry: new Registry(),
      health: () => health,
      ready: () => ({ ok: false, why: "starting" }),
    });
    const base = probes.metricsUrl.replace(/\/metrics$/, "");
    try {
      const ok = await fetch(`${base}/healthz`);
      assert.deepEqual([ok.status, await ok.text()], [200, "ok"]);
      health = { ok: false, why: "draining" };
      const draining = await fetch(`${base}/healthz`);
      assert.deepEqual([draining.status, await draining.text()], [503, "draining"]);
      const ready = await fetch(`${base}/readyz`);
      assert.deepEqual([ready.status, await ready.text()], [503, "starting"]);
      assert.equal((await fetch(`${base}/nothing`)).status, 404);
    } finally {
      await probes.close();
    }
  });

  it("without a readiness rule there is no /readyz", async () => {
    const probes = await serveProbes({ port: 0, host: "127.0.0.1", registry: new Registry() });
    try {
      assert.equal((await fetch(probes.metricsUrl.replace(/metrics$/, "readyz"))).status, 404);
    } finally {
      await probes.close();
    }
  });
});
