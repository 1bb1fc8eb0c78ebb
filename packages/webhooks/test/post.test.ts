import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { EMPTY_ALLOW_LIST, parseAllowList } from "@browserfleet/ssrf";
import { Webhook } from "standardwebhooks";
import { postEvent } from "../src/post.ts";
import { signedHeaders } from "../src/sign.ts";

let server: Server;
let port: number;
const seen: { req: IncomingMessage; body: string }[] = [];
let reply: (req: IncomingMessage) => { status: number; wait?: number; headers?: Record<string, string> } =
  () => ({
    status: 204,
  });

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ req, body });
      const r = reply(req);
      setTimeout(() => res.writeHead(r.status, r.headers).end("x".repeat(200_000)), r.wait ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const allowLocal = parseAllowList("127.0.0.1/32");

describe("posting a delivery", () => {
  test("signed headers verify with the Standard Webhooks library, by either of two secrets", () => {
    const a = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
    const b = `whsec_${Buffer.alloc(32, 2).toString("base64")}`;
    const body = JSON.stringify({ type: "job.page", data: { n: 1 } });
    const headers = signedHeaders([a, b], "msg_1", new Date(), body);
    assert.equal(headers["webhook-signature"]?.split(" ").length, 2);
    for (const s of [a, b]) assert.deepEqual(new Webhook(s).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(a).verify(`${body} `, headers), /signature/i);
  });

  test("a name that resolves to a private address is refused without a connection; an allowed one is posted to the checked address", async () => {
    const before = seen.length;
    const refused = await postEvent(`http://receiver.example:${port}/h`, {}, "{}", {
      allow: EMPTY_ALLOW_LIST,
      timeoutMs: 2_000,
      lookup: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    assert.equal(refused.kind, "refused");
    assert.equal(seen.length, before, "nothing was sent");

    // The name is resolved once, by the check; the connection goes where the check looked.
    let lookups = 0;
    const ok = await postEvent(`http://receiver.example:${port}/h`, { "x-extra": "1" }, '{"a":1}', {
      allow: allowLocal,
      timeoutMs: 2_000,
      lookup: async () => {
        lookups++;
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    assert.deepEqual(
      { kind: ok.kind, status: ok.kind === "answered" && ok.status },
      { kind: "answered", status: 204 },
    );
    assert.equal(lookups, 1);
    const got = seen.at(-1)!;
    assert.equal(got.body, '{"a":1}');
    assert.equal(got.req.headers["content-type"], "application/json");
    assert.equal(got.req.headers["x-extra"], "1");
    assert.equal(got.req.headers.host, `receiver.example:${port}`);
  });

  test("a receiver slower than the timeout is no answer; a 3xx is an answer, not followed; Retry-After is passed on", async () => {
    reply = () => ({ status: 200, wait: 1_000 });
    const slow = await postEvent(`http://127.0.0.1:${port}/h`, {}, "{}", {
      allow: allowLocal,
      timeoutMs: 200,
    });
    assert.equal(slow.kind, "unanswered");
    reply = () => ({ status: 302, headers: { location: "http://169.254.169.254/" } });
    const moved = await postEvent(`http://127.0.0.1:${port}/h`, {}, "{}", {
      allow: allowLocal,
      timeoutMs: 2_000,
    });
    assert.equal(moved.kind === "answered" && moved.status, 302);
    reply = () => ({ status: 429, headers: { "retry-after": "30" } });
    const busy = await postEvent(`http://127.0.0.1:${port}/h`, {}, "{}", {
      allow: allowLocal,
      timeoutMs: 2_000,
    });
    assert.equal(busy.kind === "answered" && busy.retryAfter, "30");
    reply = () => ({ status: 204 });
  });
});
