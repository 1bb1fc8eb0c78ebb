import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { parseAllowList } from "@browserfleet/ssrf";
import { ProxyAgent, request } from "undici";
import { type ForwardProxy, startForwardProxy } from "../../../test/helpers/forward-proxy.ts";
import { BrowserError } from "../src/errors.ts";
import { EgressRoutes } from "../src/net/egress-routes.ts";
import { type GuardProxy, startGuardProxy } from "../src/net/guard-proxy.ts";

let site: Server;
let siteUrl: string;
let pool: ForwardProxy;
let own: ForwardProxy;
let guard: GuardProxy;
let routes: EgressRoutes;

before(async () => {
  site = createServer((req, res) => res.writeHead(200).end(`seen ${req.headers.host}${req.url}`));
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  pool = await startForwardProxy({ credentials: "fleet:s3cret/+" });
  own = await startForwardProxy();
  const allow = parseAllowList("127.0.0.1/32");
  guard = await startGuardProxy(allow);
  routes = new EgressRoutes(
    guard,
    {
      pools: [
        {
          name: "de",
          url: `http://fleet:${encodeURIComponent("s3cret/+")}@127.0.0.1:${pool.port}`,
          countries: ["DE"],
          default: false,
          priceMicros: 0,
        },
      ],
      callerProxies: true,
    },
    allow,
  );
});
after(async () => {
  await routes.close();
  await guard.close();
  await pool.close();
  await own.close();
  site.close();
});

/** GET through a proxy: absolute-form for http, or a CONNECT tunnel. */
async function get(proxyUrl: string, url: string, tunnel: boolean) {
  const agent = new ProxyAgent({ uri: proxyUrl, proxyTunnel: tunnel });
  try {
    const res = await request(url, { dispatcher: agent });
    return { status: res.statusCode, body: await res.body.text() };
  } finally {
    await agent.close();
  }
}

describe("egress routes", () => {
  test("location DE goes out through the DE pool with its credentials, by absolute-form and by CONNECT", async () => {
    const route = await routes.open({
      formats: ["markdown"],
      binaryAs: "base64",
      location: { country: "DE" },
    });
    try {
      assert.ok(route.server, "a context made for it gets its own proxy server");
      const before = pool.passed.length;
      const plain = await get(route.server, `${siteUrl}/plain`, false);
      assert.equal(plain.status, 200);
      assert.match(plain.body, /seen 127\.0\.0\.1:\d+\/plain/);
      const tunnelled = await get(route.server, `${siteUrl}/tunnel`, true);
      assert.equal(tunnelled.status, 200);
      const seen = pool.passed.slice(before);
      assert.deepEqual(
        seen.map((p) => [p.method, p.target.replace(/:\d+/, ":PORT"), p.credentials]),
        [
          ["GET", "http://127.0.0.1:PORT/plain", "fleet:s3cret/+"],
          ["CONNECT", "127.0.0.1:PORT", "fleet:s3cret/+"],
        ],
      );
    } finally {
      await route.release();
    }
  });

  test("behind the pool the SSRF guard still refuses: the pool never sees the refused target", async () => {
    const route = await routes.open({ formats: ["markdown"], binaryAs: "base64", proxy: "pool:de" });
    const before = pool.passed.length;
    const blocked = siteUrl.replace("127.0.0.1", "127.0.0.2");
    const plain = await get(route.server!, `${blocked}/x`, false);
    assert.equal(plain.status, 403);
    await assert.rejects(get(route.server!, `${blocked}/x`, true));
    assert.equal(pool.passed.length, before, JSON.stringify(pool.passed.slice(before)));
    assert.ok(
      guard.refusalFor(`${blocked}/x`),
      "the refusal is known to the worker's guard, whichever route saw it",
    );
  });

  test("none and no pool of the country go directly; the caller's own proxy gets its own route", async () => {
    assert.equal(
      (await routes.open({ formats: ["markdown"], binaryAs: "base64", proxy: "none" })).server,
      undefined,
    );
    assert.equal(
      (await routes.open({ formats: ["markdown"], binaryAs: "base64", location: { country: "FR" } })).server,
      undefined,
    );
    const route = await routes.open({
      formats: ["markdown"],
      binaryAs: "base64",
      proxy: { server: own.url, username: "me", password: "pw" },
    });
    await get(route.server!, `${siteUrl}/mine`, false);
    assert.equal(own.passed.at(-1)?.credentials, "me:pw");
    await route.release();
  });

  test("a pool that refuses the credentials is a gateway failure, not a proxy login the browser would try", async () => {
    const wrong = await guard.through({
      host: "127.0.0.1",
      port: pool.port,
      username: "fleet",
      password: "nope",
    });
    try {
      const plain = await get(wrong.url, `${siteUrl}/plain`, false);
      assert.equal(plain.status, 502);
      await assert.rejects(get(wrong.url, `${siteUrl}/tunnel`, true));
    } finally {
      await wrong.close();
    }
  });

  test("a caller's proxy in private space and an unknown pool are refused", async () => {
    await assert.rejects(
      routes.open({ formats: ["markdown"], binaryAs: "base64", proxy: { server: "http://10.1.2.3:3128" } }),
      (err: unknown) => err instanceof BrowserError && err.code === "ssrf_blocked",
    );
    await assert.rejects(
      routes.open({ formats: ["markdown"], binaryAs: "base64", proxy: "pool:nope" }),
      (err: unknown) => err instanceof BrowserError && err.code === "unknown_proxy_pool",
    );
  });
});
