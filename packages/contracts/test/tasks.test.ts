import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type BrowserTask,
  checkReply,
  checkTask,
  mapRequest,
  pageResult,
  type ReplyOf,
  type ScrapeResponse,
  scrapeRequest,
  sessionActMessage,
  sessionRequest,
  TASK_KINDS,
  TASKS,
  type TaskKind,
} from "../src/index.ts";

/** Through the wire and back: what a receiver gets. */
const wire = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

const envelope = { taskId: "t-1", requestId: "req-1", deadline: 1_700_000_000_000 };
const metadata = {
  url: "https://example.com/",
  formats: ["markdown" as const],
  renders: 1,
  browserMsUsed: 10,
  ms: 12,
};
const scrapeResult: ScrapeResponse = {
  success: true,
  data: { markdown: "# Example", screenshot: "iVBORw0KGgo=" },
  errors: {},
  metadata,
};

/** One task of every kind, as the api builds it (requests already parsed by their route contracts). */
const tasks: { [K in TaskKind]: Extract<BrowserTask, { kind: K }> } = {
  scrape: { kind: "scrape", ...envelope, request: scrapeRequest.parse({ url: "https://example.com/" }) },
  session_open: {
    kind: "session_open",
    ...envelope,
    sessionId: "ses_1",
    request: sessionRequest.parse({ html: "<p>hi</p>" }),
    idleMs: 60_000,
    maxMs: 600_000,
  },
  page: {
    kind: "page",
    ...envelope,
    jobId: "job_1",
    pageId: 7,
    request: scrapeRequest.parse({ url: "https://example.com/a", formats: ["markdown", "links"] }),
    discoverLinks: 500,
  },
  map: {
    kind: "map",
    ...envelope,
    request: mapRequest.parse({ url: "https://example.com/" }),
    userAgent: "BrowserfleetBot/1",
  },
  fetch: {
    kind: "fetch",
    ...envelope,
    url: "https://example.com/robots.txt",
    maxBytes: 500_000,
    userAgent: "BrowserfleetBot/1",
  },
};

/** One successful reply of every kind. */
const replies: { [K in TaskKind]: ReplyOf<K> } = {
  scrape: { ok: true, result: scrapeResult },
  page: { ok: true, result: scrapeResult },
  session_open: {
    ok: true,
    workerId: "browser-1",
    result: {
      success: true,
      sessionId: "ses_1",
      data: { controls: [] },
      errors: {},
      metadata: {
        url: "https://example.com/",
        formats: ["controls"],
        expiresAt: "2026-01-01T00:00:00Z",
        ms: 5,
      },
    },
  },
  map: {
    ok: true,
    result: {
      success: true,
      links: [{ url: "https://example.com/a", title: "A" }],
      metadata: {
        url: "https://example.com/",
        sitemaps: 1,
        fromSitemaps: 1,
        fromPage: 0,
        truncated: false,
        ms: 3,
      },
    },
  },
  fetch: {
    ok: true,
    status: 200,
    contentType: "text/plain",
    body: "User-agent: *",
    finalUrl: "https://example.com/robots.txt",
    truncated: false,
  },
};

describe("task table", () => {
  it("has one task and one reply schema per kind, each task naming its own kind", () => {
    assert.deepEqual([...TASK_KINDS].sort(), ["fetch", "map", "page", "scrape", "session_open"]);
    for (const kind of TASK_KINDS) assert.equal(TASKS[kind].task.shape.kind.value, kind);
  });

  for (const kind of Object.keys(tasks) as TaskKind[]) {
    it(`${kind}: the task and its replies come through the wire as they were sent`, () => {
      const task = checkTask(wire(tasks[kind]));
      assert.equal(task.ok, true, task.ok ? "" : task.problem);
      assert.deepEqual(task.ok && task.value, tasks[kind]);

      const ok = checkReply(kind, wire(replies[kind]));
      assert.equal(ok.ok, true, ok.ok ? "" : ok.problem);
      assert.deepEqual(ok.ok && ok.value, replies[kind]);

      const failed = { ok: false, error: { code: "timeout", message: "too slow", status: 504 } };
      assert.deepEqual(checkReply(kind, wire(failed)), { ok: true, value: failed });
    });
  }

  it("an older api's task gets the defaults a newer contract added, and unknown envelope fields are dropped", () => {
    const sent = { ...tasks.map, request: { url: "https://example.com/" }, addedByNewerApi: 1 };
    const task = checkTask(wire(sent));
    assert.equal(task.ok, true);
    assert.deepEqual(task.ok && task.value, tasks.map);
  });

  it("refuses a malformed task, naming the kind and the fields at fault", () => {
    const missing = checkTask({ kind: "scrape", taskId: "t", requestId: "r", deadline: 1 });
    assert.deepEqual(missing, {
      ok: false,
      kind: "scrape",
      problem: "malformed scrape task: request: Invalid input: expected object, received undefined",
    });
    const badRequest = checkTask(wire({ ...tasks.page, request: { url: "ftp://x", formats: ["markdown"] } }));
    assert.equal(badRequest.ok, false);
    assert.match(
      !badRequest.ok ? badRequest.problem : "",
      /^malformed page task: request\.url: must be an absolute/,
    );
    const manyIssues = checkTask({ kind: "fetch" });
    assert.match(!manyIssues.ok ? manyIssues.problem : "", /; and \d+ more$/);
  });

  it("refuses an unknown kind or a message without one, saying which kinds exist", () => {
    assert.deepEqual(checkTask({ kind: "screencast", taskId: "t" }), {
      ok: false,
      kind: undefined,
      unknownKind: "screencast",
      problem: 'unknown task kind "screencast"; known kinds: scrape, session_open, page, map, fetch',
    });
    for (const v of [null, 42, "scrape", [], { kind: 1 }, { kind: "toString" }]) {
      const checked = checkTask(v);
      assert.equal(checked.ok, false);
      assert.equal(!checked.ok && checked.kind, undefined);
    }
  });

  it("refuses a malformed reply with the fields at fault", () => {
    const noMetadata = { ok: true, result: { ...scrapeResult, metadata: undefined } };
    assert.deepEqual(checkReply("scrape", wire(noMetadata)), {
      ok: false,
      problem: "malformed scrape reply: result.metadata: Invalid input: expected object, received undefined",
    });
    assert.equal(checkReply("map", { ok: true, result: scrapeResult }).ok, false);
    assert.equal(checkReply("fetch", { ok: "yes" }).ok, false);
    assert.equal(checkReply("session_open", { ok: false, error: { message: "no code" } }).ok, false);
    assert.equal(checkReply("scrape", undefined).ok, false);
  });

  it("hands back the reply it was given, not a copy: large formats are not rebuilt", () => {
    const big = { ok: true, result: { ...scrapeResult, data: { screenshot: "A".repeat(8 << 20) } } };
    const checked = checkReply("scrape", big);
    assert.equal(checked.ok && checked.value, big);
  });

  it("page results and act messages are checked the same way", () => {
    const result = {
      jobId: "job_1",
      pageId: 7,
      taskId: "t-1",
      reply: replies.page,
      links: ["https://e.com/"],
    };
    assert.equal(pageResult.safeParse(wire(result)).success, true);
    assert.equal(pageResult.safeParse({ ...result, reply: { ok: true } }).success, false);
    const act = { requestId: "r", actions: [{ press: "Enter" }], budgetMs: 1000 };
    assert.deepEqual(sessionActMessage.parse(wire(act)), act);
    assert.equal(sessionActMessage.safeParse({ ...act, actions: [{ fly: {} }] }).success, false);
  });
});
