/**
 * Egress proxies: an operator's pool (EGRESS_PROXIES, with credentials) and a caller's own proxy, each a
 * real forward proxy started here that records what passes. Chromium's traffic goes out through the pool a
 * request picks (by proxy, or by location.country with proxy auto), the SSRF guard still stands in front of
 * it, the pool's price is a line of the quote and of the charge, and a proxy in private space is refused.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type ForwardProxy, startForwardProxy } from "../helpers/forward-proxy.ts";
import { callTool, connectMcp, type Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

const POOL_PRICE = 2_000;
let stack: Stack;
let pool: ForwardProxy;
let own: ForwardProxy;

before(async () => {
  pool = await startForwardProxy({ credentials: "fleet:pool-secret" });
  own = await startForwardProxy();
  stack = await startStack({
    slots: 2,
    env: {
      EGRESS_PROXIES: JSON.stringify([
        {
          name: "de-res",
          url: `http://fleet:pool-secret@127.0.0.1:${pool.port}`,
          countries: ["DE", "AT"],
          priceMicros: POOL_PRICE,
        },
      ]),
      CALLER_PROXIES: "on",
    },
  });
});
after(async () => {
  await stack?.stop();
  await pool?.close();
  await own?.close();
});

const balance = async (): Promise<number> => (await stack.call("GET", "/web/v1/account")).body.balance.micros;
/** What passed a proxy while `run` ran, with the fixture site's port written PORT. */
async function passedDuring<T>(
  proxy: ForwardProxy,
  run: () => Promise<T>,
): Promise<{ out: T; passed: string[] }> {
  const from = proxy.passed.length;
  const out = await run();
  const passed = proxy.passed.slice(from).map((p) => `${p.method} ${p.target}`.replaceAll(/:\d+/g, ":PORT"));
  return { out, passed };
}

describe("egress proxies", () => {
  test("location DE (proxy auto) goes out through the DE pool, with its credentials, at the pool's price", async () => {
    const before = await balance();
    const { out, passed } = await passedDuring(pool, () =>
      stack.post("/web/v1/scrape", {
        url: `${stack.site.url}/article`,
        formats: ["markdown"],
        location: { country: "DE" },
      }),
    );
    assert.equal(out.status, 200, JSON.stringify(out.body));
    assert.match(out.body.data.markdown, /\w+/);
    assert.ok(passed.includes("GET http://127.0.0.1:PORT/article"), passed.join("\n"));
    assert.ok(pool.passed.at(-1)?.credentials === "fleet:pool-secret");
    const { geolocation, ...seenAs } = out.body.metadata.seenAs;
    assert.deepEqual(seenAs, { languages: ["de-DE", "de"], timezone: "Europe/Berlin", proxy: "pool:de-res" });
    assert.ok(geolocation.latitude > 52 && geolocation.latitude < 53, "Berlin");
    assert.equal(before - (await balance()), 1_000 + POOL_PRICE, "one format plus the pool");
  });

  test("proxy none, or a country without a pool, goes directly at the plain price", async () => {
    for (const body of [{ location: { country: "DE" }, proxy: "none" }, { location: { country: "FR" } }]) {
      const before = await balance();
      const { out, passed } = await passedDuring(pool, () =>
        stack.post("/web/v1/scrape", { url: `${stack.site.url}/article`, formats: ["markdown"], ...body }),
      );
      assert.equal(out.status, 200, JSON.stringify(out.body));
      assert.deepEqual(passed, [], JSON.stringify(body));
      assert.equal(out.body.metadata.seenAs.proxy, "none");
      assert.equal(before - (await balance()), 1_000);
    }
  });

  test("the 402 quote includes the pool's price", async () => {
    const r = await stack.postKeyless("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["screenshot"],
      proxy: "pool:de-res",
    });
    assert.equal(r.status, 402, JSON.stringify(r.body));
    assert.equal(r.body.error.price.micros, 1_000 + POOL_PRICE, JSON.stringify(r.body.error));
  });

  test("behind the pool the SSRF guard still refuses: an internal image never reaches the pool", async () => {
    const blocked = stack.site.url.replace("127.0.0.1", "127.0.0.2");
    const { out, passed } = await passedDuring(pool, () =>
      stack.post("/web/v1/scrape", {
        html: `<h1>Mixed</h1><p>Two images.</p><img src="${stack.site.url}/img/pixel.png"><img src="${blocked}/img/pixel.png">`,
        formats: ["markdown"],
        proxy: "pool:de-res",
      }),
    );
    assert.equal(out.status, 200, JSON.stringify(out.body));
    assert.ok(passed.includes("GET http://127.0.0.1:PORT/img/pixel.png"), passed.join("\n"));
    assert.ok(!passed.some((p) => p.includes("127.0.0.2")), passed.join("\n"));
  });

  test("a session goes out through its pool for its whole life: the open and a navigate", async () => {
    const { out: opened, passed } = await passedDuring(pool, () =>
      stack.post("/web/v1/session", { url: `${stack.site.url}/article`, proxy: "pool:de-res" }),
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.ok(passed.includes("GET http://127.0.0.1:PORT/article"), passed.join("\n"));
    assert.deepEqual(opened.body.metadata.seenAs, { proxy: "pool:de-res" });
    try {
      const { out: acted, passed: later } = await passedDuring(pool, () =>
        stack.post("/web/v1/act", {
          sessionId: opened.body.sessionId,
          actions: [{ navigate: { url: `${stack.site.url}/page2` } }],
        }),
      );
      assert.equal(acted.status, 200, JSON.stringify(acted.body));
      assert.ok(later.includes("GET http://127.0.0.1:PORT/page2"), later.join("\n"));
    } finally {
      await stack.call("DELETE", `/web/v1/session/${opened.body.sessionId}`);
    }
  });

  test("a caller's own proxy carries the render, with its credentials; it is never cached", async () => {
    const body = {
      url: `${stack.site.url}/article`,
      formats: ["markdown"],
      maxAge: 600_000,
      proxy: { server: own.url, username: "me", password: "pw" },
    };
    for (let i = 0; i < 2; i++) {
      const { out, passed } = await passedDuring(own, () => stack.post("/web/v1/scrape", body));
      assert.equal(out.status, 200, JSON.stringify(out.body));
      assert.ok(passed.includes("GET http://127.0.0.1:PORT/article"), `call ${i}: ${passed.join("\n")}`);
      assert.equal(out.body.metadata.cached, undefined);
      assert.equal(out.body.metadata.seenAs.proxy, "own");
    }
    assert.equal(own.passed.at(-1)?.credentials, "me:pw");
  });

  test("refused: a proxy in private space, an unknown pool, a malformed proxy", async () => {
    for (const server of ["http://10.1.2.3:3128", "http://169.254.169.254", "http://127.0.0.2:3128"]) {
      const r = await stack.post("/web/v1/scrape", {
        url: `${stack.site.url}/article`,
        proxy: { server },
      });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, "ssrf_blocked");
      assert.equal(r.body.error.details[0].field, "proxy.server");
    }
    const unknown = await stack.post("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      proxy: "pool:fr",
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, "unknown_proxy_pool");
    assert.match(unknown.body.error.message, /pool:de-res/);
    for (const proxy of [
      "sometimes",
      { server: "socks5://1.2.3.4:1080" },
      { server: "http://u:p@1.2.3.4:8080" },
    ]) {
      const r = await stack.post("/web/v1/scrape", { url: `${stack.site.url}/article`, proxy });
      assert.equal(r.status, 400, JSON.stringify(proxy));
      assert.match(r.body.error.details[0].field, /^proxy/);
    }
  });

  test("a render told nothing says nothing: no seenAs", async () => {
    const r = await stack.post("/web/v1/scrape", { url: `${stack.site.url}/page2`, formats: ["markdown"] });
    assert.equal(r.status, 200);
    assert.equal(r.body.metadata.seenAs, undefined);
  });

  test("the worker counts tasks by the way they went out", async () => {
    const text = await (await fetch(stack.worker.metricsUrl!)).text();
    const count = (labels: string) =>
      Number(new RegExp(`^fleet_egress_tasks_total\\{${labels}\\} (\\d+)`, "m").exec(text)?.[1] ?? 0);
    assert.ok(count('way="pool",pool="de-res"') >= 3, text);
    assert.ok(count('way="own",pool=""') >= 2, text);
    assert.ok(count('way="direct",pool=""') >= 2, text);
  });

  test("REST and MCP list the pools with their countries and price, never their address", async () => {
    const rest = await stack.call("GET", "/web/v1/proxies");
    assert.equal(rest.status, 200);
    assert.deepEqual(rest.body, {
      pools: [
        { name: "de-res", countries: ["DE", "AT"], default: false, price: { usd: "$0.002", micros: 2000 } },
      ],
      callerProxies: true,
    });
    assert.ok(!JSON.stringify(rest.body).includes("pool-secret"));
    const mcp = await connectMcp(stack.api.url, { authorization: `Bearer ${stack.key}` });
    try {
      const listed = await callTool(mcp, "web_proxies", {});
      assert.equal(listed.isError, false);
      assert.equal((listed.body as Json).pools[0].name, "de-res");
      const scraped = await callTool(mcp, "web_scrape", {
        url: `${stack.site.url}/page2`,
        formats: ["markdown"],
        location: { country: "AT" },
      });
      assert.equal(scraped.isError, false, JSON.stringify(scraped.body));
      assert.ok(pool.passed.some((p) => p.target.endsWith("/page2")));
    } finally {
      await mcp.close();
    }
  });
});

describe("a worker without the pool the api took (a rolling change of EGRESS_PROXIES)", () => {
  let rolling: Stack;
  before(async () => {
    rolling = await startStack({
      slots: 1,
      env: {
        EGRESS_PROXIES: JSON.stringify([{ name: "gone", url: "http://127.0.0.1:9" }]),
        // Without the worker's answer the page would wait this long before it is sent again.
        JOB_PAGE_TIMEOUT_MS: "600000",
      },
      worker: { egressPools: [] },
    });
  });
  after(async () => {
    await rolling?.stop();
  });

  test("a job's pages refused by the worker fail at once with the reason, not after its page timeout", async () => {
    const start = await rolling.post("/web/v1/scrape/batch", {
      urls: [`${rolling.site.url}/article`, `${rolling.site.url}/page2`],
      formats: ["markdown"],
      proxy: "pool:gone",
    });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitFor(
      "the batch to end",
      async () => {
        const r = await rolling.call("GET", start.body.url);
        return ["queued", "running"].includes(r.body.status) ? undefined : r.body;
      },
      120_000,
    );
    assert.equal(done.failed, 2, JSON.stringify(done));
    for (const page of done.data) assert.equal(page.error.code, "unknown_proxy_pool");
  });
});
