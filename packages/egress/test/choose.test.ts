import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type EgressPool, loadConfig } from "@browserfleet/config";
import { chooseEgress, EgressRefused } from "../src/index.ts";

const pool = (name: string, more: Partial<EgressPool> = {}): EgressPool => ({
  name,
  url: `http://u:p@${name}.egress:3128`,
  countries: [],
  default: false,
  priceMicros: 0,
  ...more,
});
const de = pool("de", { countries: ["DE", "AT"] });
const fallback = pool("any", { default: true });
const settings = { pools: [de, fallback], callerProxies: false };

describe("chooseEgress", () => {
  it("auto (or nothing) takes the pool of the country, else the default pool, else none", () => {
    assert.deepEqual(chooseEgress({ location: { country: "AT" } }, settings), { kind: "pool", pool: de });
    assert.deepEqual(chooseEgress({ proxy: "auto", location: { country: "JP" } }, settings), {
      kind: "pool",
      pool: fallback,
    });
    assert.deepEqual(chooseEgress({}, settings), { kind: "pool", pool: fallback });
    assert.deepEqual(chooseEgress({ location: { country: "JP" } }, { pools: [de], callerProxies: false }), {
      kind: "direct",
    });
    assert.deepEqual(chooseEgress({}, { pools: [], callerProxies: false }), { kind: "direct" });
  });

  it("none is direct whatever the country; pool:<name> is that pool or a refusal listing the pools", () => {
    assert.deepEqual(chooseEgress({ proxy: "none", location: { country: "DE" } }, settings), {
      kind: "direct",
    });
    assert.deepEqual(chooseEgress({ proxy: "pool:any", location: { country: "DE" } }, settings), {
      kind: "pool",
      pool: fallback,
    });
    assert.throws(
      () => chooseEgress({ proxy: "pool:fr" }, settings),
      (err: unknown) =>
        err instanceof EgressRefused &&
        err.code === "unknown_proxy_pool" &&
        /pool:de, pool:any/.test(err.message),
    );
  });

  it("a caller's own proxy only where the operator allows it", () => {
    const own = { server: "http://proxy.example:3128", username: "me" };
    assert.throws(
      () => chooseEgress({ proxy: own }, settings),
      (err: unknown) => err instanceof EgressRefused && err.code === "proxy_not_allowed",
    );
    assert.deepEqual(chooseEgress({ proxy: own }, { ...settings, callerProxies: true }), {
      kind: "own",
      proxy: own,
    });
  });
});

describe("EGRESS_PROXIES", () => {
  it("is read with its defaults, and a bad one stops the start naming the setting", () => {
    const c = loadConfig({ EGRESS_PROXIES: '[{"name":"de","url":"http://u:p@sq:3128","countries":["DE"]}]' });
    assert.deepEqual(c.EGRESS_PROXIES, [
      { name: "de", url: "http://u:p@sq:3128", countries: ["DE"], default: false, priceMicros: 0 },
    ]);
    assert.deepEqual(loadConfig({}).EGRESS_PROXIES, []);
    for (const bad of [
      "not json",
      '[{"name":"DE","url":"http://sq:3128"}]',
      '[{"name":"de","url":"socks5://sq:1080"}]',
      '[{"name":"de","url":"http://sq:3128/path"}]',
      '[{"name":"de","url":"http://a:1"},{"name":"de","url":"http://b:1"}]',
      '[{"name":"a","url":"http://a:1","default":true},{"name":"b","url":"http://b:1","default":true}]',
    ])
      assert.throws(() => loadConfig({ EGRESS_PROXIES: bad }), /EGRESS_PROXIES/, bad);
  });
});
