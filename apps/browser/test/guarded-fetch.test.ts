import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { parseAllowList } from "@browserfleet/ssrf";
import { BrowserError } from "../src/errors.ts";
import { type GuardProxy, startGuardProxy } from "../src/net/guard-proxy.ts";
import { guardedFetch, gunzipBounded } from "../src/net/guarded-fetch.ts";

let server: Server;
let base: string;
/** The same server under another origin (localhost instead of 127.0.0.1). */
let other: string;
let open: GuardProxy;
let closed: GuardProxy;

before(async () => {
  server = createServer((req, res) => {
    if (req.url === "/redirect") res.writeHead(302, { location: "/text" }).end();
    else if (req.url === "/cross") res.writeHead(302, { location: `${other}/echo` }).end();
    else if (req.url === "/echo") res.writeHead(200).end(JSON.stringify(req.headers));
    else if (req.url === "/text") res.writeHead(200, { "content-type": "text/plain" }).end("hello there");
    else if (req.url === "/big") res.writeHead(200).end(Buffer.alloc(100_000, 97));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
  other = `http://localhost:${port}`;
  open = await startGuardProxy(parseAllowList("127.0.0.1,localhost"));
  closed = await startGuardProxy(parseAllowList(undefined));
});
after(async () => {
  await open.close();
  await closed.close();
  server.close();
});

describe("guardedFetch", () => {
  test("follows redirects through the guard and reports the final URL and type", async () => {
    const r = await guardedFetch(open, `${base}/redirect`, {
      maxBytes: 1000,
      timeoutMs: 5000,
      overflow: "fail",
    });
    assert.equal(r.status, 200);
    assert.equal(r.finalUrl, `${base}/text`);
    assert.equal(r.contentType, "text/plain");
    assert.equal(r.body.toString(), "hello there");
  });

  test("cookies and authorization stay with their origin across a cross-origin redirect", async () => {
    const headers = { cookie: "sid=secret", authorization: "Basic YTpi", "x-custom": "kept" };
    const same = await guardedFetch(open, `${base}/echo`, {
      maxBytes: 10_000,
      timeoutMs: 5000,
      overflow: "fail",
      headers,
    });
    assert.equal(JSON.parse(same.body.toString()).cookie, "sid=secret");
    const cross = await guardedFetch(open, `${base}/cross`, {
      maxBytes: 10_000,
      timeoutMs: 5000,
      overflow: "fail",
      headers,
    });
    const seen = JSON.parse(cross.body.toString());
    assert.equal(cross.finalUrl, `${other}/echo`);
    assert.equal(seen.cookie, undefined);
    assert.equal(seen.authorization, undefined);
    assert.equal(seen["x-custom"], "kept");
  });

  test("a loopback target is refused unless the operator allowed it", async () => {
    await assert.rejects(
      guardedFetch(closed, `${base}/text`, { maxBytes: 1000, timeoutMs: 5000, overflow: "fail" }),
      (err) => err instanceof BrowserError && err.code === "ssrf_blocked",
    );
  });

  test("bodies past maxBytes are cut (and flagged) or refused, as asked", async () => {
    const cut = await guardedFetch(open, `${base}/big`, {
      maxBytes: 1000,
      timeoutMs: 5000,
      overflow: "truncate",
    });
    assert.equal(cut.body.length, 1000);
    assert.equal(cut.truncated, true);
    await assert.rejects(
      guardedFetch(open, `${base}/big`, { maxBytes: 1000, timeoutMs: 5000, overflow: "fail" }),
      (err) => err instanceof BrowserError && err.code === "too_large",
    );
  });

  test("gunzip output is capped", () => {
    const bomb = gzipSync(Buffer.alloc(5_000_000));
    assert.throws(() => gunzipBounded(bomb, 1_000_000));
    assert.equal(gunzipBounded(gzipSync(Buffer.from("ok")), 10).toString(), "ok");
  });
});

describe("the guard proxy", () => {
  test("passes on request headers as large as a request's contract allows; the site says what it takes", async () => {
    const site = createServer({ maxHeaderSize: 4 * 1024 * 1024 }, (req, res) =>
      res.end(String(req.headers["x-large"]?.length)),
    );
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    const { port } = site.address() as { port: number };
    const proxy = new URL(open.url);
    // 50 headers of 8192 characters, each 3 bytes in UTF-8: about 1.2 MB.
    const headers = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`x-${i}`, Buffer.from("é".repeat(8192)).toString("latin1")]),
    );
    try {
      const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: proxy.hostname,
            port: proxy.port,
            path: `http://127.0.0.1:${port}/`,
            headers: { ...headers, "x-large": "y".repeat(8192) },
          },
          (res) => {
            let body = "";
            res.on("data", (d) => {
              body += d;
            });
            res.on("end", () => resolve({ status: res.statusCode, body }));
          },
        );
        req.on("error", reject);
        req.end();
      });
      assert.deepEqual(answer, { status: 200, body: "8192" });
    } finally {
      site.close();
    }
  });
});
