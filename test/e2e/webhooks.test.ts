/**
 * Webhooks as a caller's receiver sees them: a crawl or batch pushes job.started, one job.page per finished
 * page, and its end, each signed the Standard Webhooks way with the account's secret and verified here with
 * the library; retried when the receiver fails, stopped by a 410, refused for a private address, signed by
 * both secrets while a rotation overlaps.
 */
import assert from "node:assert/strict";
import { after, before, describe, mock, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { callTool, connectMcp, type Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack, waitJob as waitJobOf } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { type Delivery, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let stack: Stack;
const receivers: Receiver[] = [];
before(async () => {
  stack = await startStack({
    slots: 3,
    // Sessions here end by idle timeout within seconds (one test waits for that).
    env: { WEBHOOK_RETRY_BASE_MS: "100", WEBHOOK_POLL_MS: "200", SESSION_IDLE_TIMEOUT_MS: "3000" },
  });
});
after(async () => {
  await stack?.stop();
  for (const r of receivers) await r.close();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const secretPath = "/web/v1/account/webhook-secret";

async function receiverFor(key: string): Promise<Receiver> {
  const got = await stack.call("GET", secretPath, auth(key));
  assert.equal(got.status, 200, JSON.stringify(got.body));
  assert.match(got.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const r = await startReceiver([got.body.secret]);
  receivers.push(r);
  return r;
}

const waitJob = (path: string, key: string, timeoutMs?: number) => waitJobOf(stack, path, key, timeoutMs);

const until = (r: Receiver, type: string, what = `a ${type} event`) =>
  waitFor(
    what,
    async () => {
      const e = r.events().find((d) => d.type === type);
      assert.ok(e, `no ${type} yet: ${r.events().map((d) => d.type)}`);
      return e;
    },
    60_000,
    50,
  );

describe("webhooks", () => {
  test("a crawl pushes started, every page once in the order they finished, then completed; each verified; the status shows the deliveries", async () => {
    const { key } = await stack.newKey(1_000_000);
    const receiver = await receiverFor(key);
    const start = await stack.post(
      "/web/v1/crawl",
      {
        url: `${stack.site.url}/crawl/`,
        maxDepth: 1,
        limit: 5,
        webhook: {
          url: receiver.url,
          headers: { Authorization: "Bearer receiver-token" },
          metadata: { run: "nightly" },
        },
      },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    await until(receiver, "job.completed");
    const done = await waitJob(start.body.url, key);

    const events = receiver.events();
    const types = events.map((d) => d.type);
    assert.equal(types[0], "job.started");
    assert.equal(types.at(-1), "job.completed");
    assert.deepEqual(new Set(types.slice(1, -1)), new Set(["job.page"]));
    const pages = events.filter((d) => d.type === "job.page");
    assert.equal(pages.length, done.completed + done.failed, "one event per finished page");
    assert.deepEqual(pages.map((d) => d.data.page.url).sort(), done.data.map((p: Json) => p.url).sort());
    // In the order they finished: each page event counts one more finished page than the one before.
    assert.deepEqual(
      pages.map((d) => d.data.completed + d.data.failed),
      pages.map((_, i) => i + 1),
    );
    const home = pages.find((d) => d.data.page.url === `${stack.site.url}/crawl/`);
    assert.match(home?.data.page.data.markdown, /The start page/);
    for (const d of events) {
      assert.deepEqual(d.verifiedBy, [0], `${d.type} verifies with the account's secret`);
      assert.equal(d.headers.authorization, "Bearer receiver-token");
      assert.deepEqual(d.data.metadata, { run: "nightly" });
      assert.equal(d.data.jobId, start.body.jobId);
      assert.equal(JSON.parse(d.body).version, 1);
    }
    assert.equal(receiver.attempts.length, events.length, "a receiver that answers 200 gets each event once");
    assert.equal(events.at(-1)?.data.status, "completed");
    assert.equal(events.at(-1)?.data.charged.micros, done.charged.micros);

    const status = (await stack.call("GET", start.body.url, auth(key))).body;
    assert.deepEqual(
      { ...status.webhook, lastAttempt: undefined },
      {
        url: receiver.url,
        events: ["job.started", "job.page", "job.completed", "job.failed", "job.cancelled"],
        delivered: events.length,
        pending: 0,
        failed: 0,
        stopped: 0,
        lastAttempt: undefined,
      },
    );
    assert.equal(status.webhook.lastAttempt.event, "job.completed");
    assert.equal(status.webhook.lastAttempt.status, 200);
  });

  test("a receiver that fails its first attempts (503, then a timeout-free 500) still gets every event, in order, once after dedupe", async () => {
    const { key } = await stack.newKey(1_000_000);
    const receiver = await receiverFor(key);
    receiver.answer = (_d, n) =>
      n === 1 ? { status: 503, headers: { "Retry-After": "0" } } : n <= 3 ? 500 : 200;
    const start = await stack.post(
      "/web/v1/scrape/batch",
      { urls: [`${stack.site.url}/article`, `${stack.site.url}/page2`], webhook: { url: receiver.url } },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    await until(receiver, "job.completed");
    const types = receiver.events().map((d) => d.type);
    assert.deepEqual(types, ["job.started", "job.page", "job.page", "job.completed"]);
    assert.equal(receiver.attempts.length, types.length + 3, "three failed attempts, each tried again");
    assert.deepEqual(
      receiver.attempts.slice(0, 4).map((d) => d.type),
      ["job.started", "job.started", "job.started", "job.started"],
      "nothing later goes out while an earlier event of the job waits for its retry",
    );
    // The retried attempts are the same event: the same webhook-id and body, signed again.
    assert.equal(new Set(receiver.attempts.slice(0, 4).map((d) => d.id)).size, 1);
    assert.equal(new Set(receiver.attempts.slice(0, 4).map((d) => d.body)).size, 1);
  });

  test("events: a webhook that names its events gets only those; a cancelled batch says so", async () => {
    const { key } = await stack.newKey(1_000_000);
    const receiver = await receiverFor(key);
    const start = await stack.post(
      "/web/v1/scrape/batch",
      {
        urls: [`${stack.site.url}/article`, `${stack.site.url}/slow?ms=20000`],
        webhook: { url: receiver.url, events: ["job.completed", "job.cancelled"] },
      },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const cancelled = await stack.call("DELETE", start.body.url, auth(key));
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const e = await until(receiver, "job.cancelled");
    assert.equal(e.data.status, "cancelled");
    assert.deepEqual(
      receiver.events().map((d) => d.type),
      ["job.cancelled"],
      "no started or page events were asked for",
    );
  });

  test("a page whose result is larger than a delivery carries comes as a link the job's key reads it at", async () => {
    const { key } = await stack.newKey(1_000_000);
    const receiver = await receiverFor(key);
    const start = await stack.post(
      "/web/v1/scrape/batch",
      {
        urls: [`${stack.site.url}/manual`, `${stack.site.url}/article`],
        formats: ["screenshot"],
        screenshot: { fullPage: true },
        webhook: { url: receiver.url },
      },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    await until(receiver, "job.completed");
    const manual = receiver.events().find((d) => d.data.page?.url === `${stack.site.url}/manual`);
    assert.ok(manual, "the long page's event came");
    assert.equal(manual.data.page.status, "completed");
    assert.equal(manual.data.page.data, undefined, "no megabytes in the delivery");
    assert.ok(manual.body.length < 64 * 1024, `${manual.body.length} bytes`);
    const link = new URL(manual.data.page.resultUrl);
    assert.equal(link.pathname, start.body.url);
    const read = await stack.call("GET", `${link.pathname}${link.search}`, auth(key));
    assert.equal(read.status, 200, JSON.stringify(read.body).slice(0, 300));
    assert.equal(read.body.data[0].url, `${stack.site.url}/manual`);
    assert.ok(read.body.data[0].data.screenshot.length > 256 * 1024);
    const small = receiver.events().find((d) => d.data.page?.url === `${stack.site.url}/article`);
    assert.ok(small?.data.page.data.screenshot, "a page that fits comes whole");
    const other = await stack.newKey(1_000_000);
    assert.equal((await stack.call("GET", `${link.pathname}${link.search}`, auth(other.key))).status, 404);
  });

  test("a 410 Gone stops the webhook: nothing more is sent, and the status says how many were stopped", async () => {
    const { key } = await stack.newKey(1_000_000);
    const receiver = await receiverFor(key);
    receiver.answer = (d) => (d.type === "job.page" ? 410 : 200);
    const start = await stack.post(
      "/web/v1/scrape/batch",
      {
        urls: [`${stack.site.url}/article`, `${stack.site.url}/page2`, `${stack.site.url}/links`],
        webhook: { url: receiver.url },
      },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    await waitJob(start.body.url, key);
    const status = await waitFor(
      "the deliveries to settle",
      async () => {
        const s = (await stack.call("GET", start.body.url, auth(key))).body;
        assert.equal(s.webhook.pending, 0, JSON.stringify(s.webhook));
        return s;
      },
      30_000,
      100,
    );
    assert.deepEqual(
      receiver.attempts.map((d) => d.type),
      ["job.started", "job.page"],
      "after the 410 nothing more is sent",
    );
    assert.equal(status.webhook.delivered, 1);
    assert.equal(status.webhook.stopped, 4, "the 410'd page, the two other pages and completed");
    assert.equal(status.webhook.lastAttempt.status, 410);
  });

  test("a receiver on a private, loopback or metadata address is refused when the job starts, naming webhook.url; a keyless caller cannot register one", async () => {
    for (const url of ["http://10.1.2.3/hook", "http://169.254.169.254/latest", "http://[::1]:8080/"]) {
      const r = await stack.post("/web/v1/crawl", { url: `${stack.site.url}/crawl/`, webhook: { url } });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, "ssrf_blocked");
      assert.equal(r.body.error.details[0].field, "webhook.url");
    }
    const keyless = await stack.postKeyless("/web/v1/crawl", {
      url: `${stack.site.url}/crawl/`,
      webhook: { url: "https://example.com/hook" },
    });
    assert.notEqual(keyless.status, 200);
  });

  test("headers the delivery sets itself, and a bad event name, are 400s naming the field", async () => {
    const bad = [
      [{ url: "https://example.com/h", headers: { "Webhook-Signature": "v1,x" } }, "webhook.headers"],
      [{ url: "https://example.com/h", headers: { "content-type": "text/plain" } }, "webhook.headers"],
      [{ url: "https://example.com/h", events: ["job.exploded"] }, "webhook.events.0"],
      [{ url: "ftp://example.com/h" }, "webhook.url"],
    ] as const;
    for (const [webhook, field] of bad) {
      const r = await stack.post("/web/v1/scrape/batch", {
        urls: [`${stack.site.url}/article`, `${stack.site.url}/page2`],
        webhook,
      });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.ok(
        r.body.error.details.some((d: Json) => String(d.field).startsWith(field)),
        `${JSON.stringify(webhook)}: ${JSON.stringify(r.body.error.details)}`,
      );
    }
  });

  test("a session opened with a webhook says session.closed when it is closed, and when it expires; a keyless caller cannot give one", async () => {
    const { key } = await stack.newKey(1_000_000);
    const receiver = await receiverFor(key);
    const open = async () => {
      const r = await stack.post(
        "/web/v1/session",
        {
          url: `${stack.site.url}/article`,
          formats: ["markdown"],
          webhook: { url: receiver.url, metadata: { agent: "a1" } },
        },
        auth(key),
      );
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.sessionId as string;
    };
    const closedId = await open();
    const acted = await stack.post(
      "/web/v1/act",
      { sessionId: closedId, actions: [{ scroll: { direction: "down" } }] },
      auth(key),
    );
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.equal((await stack.call("DELETE", `/web/v1/session/${closedId}`, auth(key))).status, 200);
    const closed = await until(receiver, "session.closed");
    assert.deepEqual(
      { ...closed.data, openedAt: undefined, closedAt: undefined },
      {
        sessionId: closedId,
        status: "closed",
        reason: "closed by the caller",
        actions: 1,
        metadata: { agent: "a1" },
        openedAt: undefined,
        closedAt: undefined,
      },
    );
    assert.deepEqual(closed.verifiedBy, [0]);

    const idleId = await open();
    const expired = await waitFor(
      "the idle session's session.closed",
      async () => {
        const e = receiver.events().find((d) => d.type === "session.closed" && d.data.sessionId === idleId);
        assert.ok(e, "not yet");
        return e;
      },
      60_000,
      100,
    );
    assert.equal(expired.data.status, "expired");
    assert.equal(expired.data.reason, "idle timeout");
    assert.equal(receiver.events().length, 2, "one event per session");

    const body = { url: `${stack.site.url}/article`, webhook: { url: receiver.url } };
    const keyless = await stack.postKeyless("/web/v1/session", body);
    assert.equal(keyless.status, 402, JSON.stringify(keyless.body));
    assert.match(keyless.body.error.message, /webhook needs an API key/);
    const mcp = await connectMcp(stack.api.url);
    try {
      const r = await callTool(mcp, "web_session_open", body);
      assert.equal(r.isError, true);
      assert.equal(r.body.error.code, "key_required", JSON.stringify(r.body));
      assert.equal(r.body.error.details[0].field, "webhook");
    } finally {
      await mcp.close();
    }
  });

  test("rotating the secret: deliveries carry both signatures while the old one overlaps; an old delivery replayed later fails the timestamp check", async () => {
    const { key } = await stack.newKey(1_000_000);
    const before = (await stack.call("GET", secretPath, auth(key))).body;
    assert.equal(before.previous, null);
    const again = (await stack.call("GET", secretPath, auth(key))).body;
    assert.equal(again.secret, before.secret, "read again, the same secret");
    const other = await stack.newKey(1_000_000);
    assert.notEqual((await stack.call("GET", secretPath, auth(other.key))).body.secret, before.secret);

    const rotated = await stack.post(secretPath, { overlapMinutes: 60 }, auth(key));
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.notEqual(rotated.body.secret, before.secret);
    assert.equal(rotated.body.previous.secret, before.secret);
    assert.ok(Date.parse(rotated.body.previous.signsUntil) > Date.now() + 59 * 60_000);

    const receiver = await startReceiver([before.secret, rotated.body.secret]);
    receivers.push(receiver);
    const start = await stack.post(
      "/web/v1/scrape/batch",
      { urls: [`${stack.site.url}/article`, `${stack.site.url}/page2`], webhook: { url: receiver.url } },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await until(receiver, "job.completed");
    for (const d of receiver.events())
      assert.deepEqual(d.verifiedBy, [0, 1], "a receiver with either secret verifies it");

    // Ten minutes on, the same delivery replayed is refused by the library's timestamp check.
    const replay = (d: Delivery) =>
      new Webhook(rotated.body.secret).verify(d.body, d.headers as Record<string, string>);
    mock.timers.enable({ apis: ["Date"], now: Date.now() + 10 * 60_000 });
    try {
      assert.throws(() => replay(done), /timestamp/i);
    } finally {
      mock.timers.reset();
    }

    const bare = await stack.post(secretPath, undefined, auth(key));
    assert.equal(bare.status, 200, "no body rotates with the default overlap");
    assert.ok(Date.parse(bare.body.previous.signsUntil) > Date.now() + 23 * 3_600_000);
    const ended = await stack.post(secretPath, { overlapMinutes: 0 }, auth(key));
    assert.equal(ended.body.previous, null, "with no overlap the replaced secret stops signing at once");
    const bad = await stack.post(secretPath, { overlapMinutes: -1 }, auth(key));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details[0].field, "overlapMinutes");
  });
});
