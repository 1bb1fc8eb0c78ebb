/**
 * The api under an OpenAPI fuzzer (schemathesis, pinned in test/helpers/schemathesis.ts) against the document
 * it serves, on a real local stack: with a funded key (two seeds) and without one. Fixed seeds and a bounded
 * number of examples per operation keep it repeatable. Config and hooks: test/e2e/openapi-fuzz/. Then a
 * hostile-strings pass of our own (test/helpers/hostile-strings.ts): NUL, CR/LF, a lone surrogate, 100,000
 * characters, right-to-left and zero-width characters in every string the document lets a caller send.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { hostileClient, type Lane, runHostilePass } from "../helpers/hostile-pass.ts";
import { hostileCalls } from "../helpers/hostile-strings.ts";
import { runSchemathesis, schemathesisBin } from "../helpers/schemathesis.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

// not_a_server_error is replaced by the hooks' no_internal_error: a 502/503/504 with its documented error code is
// the outcome of valid work (a selector that never appeared, a page that failed), not a fault of the api.
const CHECKS = [
  "no_internal_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_schema_conformance",
  "response_headers_conformance",
  "negative_data_rejection",
  "positive_data_acceptance",
  "ignored_auth",
  "valid_input_not_refused",
].join(",");
/** Every run: those checks, a fixed seed and a few examples per operation, so a run is repeatable. */
const run = (seed: number) => [
  "--checks",
  CHECKS,
  "--max-examples",
  "5",
  "--seed",
  String(seed),
  // One worker: with two, hypothesis's lambda-description cache (shared by the threads) now and then
  // raised inside the fuzzer's own example generation, a FlakyFailure of the tool, not of the api.
  "--workers",
  "1",
  "--request-timeout",
  "60",
];

/** Hostile-string lanes run side by side (one for acts), each on a browser slot of its own. */
const LANES = 4;

/** The failures section of a run, for the assertion message. */
const failures = (output: string) =>
  output.slice(Math.max(0, output.indexOf("FAILURES") - 200)).slice(0, 20_000);

describe("the api under schemathesis", { timeout: 900_000 }, () => {
  let stack: Stack;
  let work: string;
  before(async () => {
    schemathesisBin(); // installs it first when it is missing, or fails here saying how
    work = await mkdtemp(join(tmpdir(), "fleet-fuzz-"));
    // The fuzzer sends hundreds of calls a minute from one address: rate limits would answer most of them.
    stack = await startStack({
      env: {
        RATE_LIMIT_PER_MINUTE: "1000000",
        RATE_LIMIT_KEYLESS_PER_MINUTE: "1000000",
        RATE_LIMIT_READ_PER_MINUTE: "1000000",
      },
    });
  });

  after(async () => {
    await stack?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("with a funded key: no 5xx, every answer as documented, invalid input refused, valid input taken", async () => {
    const out = await runSchemathesis(
      `${stack.api.url}/openapi.json`,
      ["-H", `Authorization: Bearer ${stack.key}`, ...run(1)],
      work,
    );
    assert.equal(out.code, 0, failures(out.output));
    assert.match(out.output, /Stateful/);
  });

  // The examples and coverage phases do not depend on the seed: a second seed reruns only the random ones.
  it("with a funded key and a second seed: the fuzzing and stateful phases find nothing either", async () => {
    const out = await runSchemathesis(
      `${stack.api.url}/openapi.json`,
      ["-H", `Authorization: Bearer ${stack.key}`, "--phases", "fuzzing,stateful", ...run(2)],
      work,
    );
    assert.equal(out.code, 0, failures(out.output));
    assert.match(out.output, /Stateful/);
  });

  it("without a key: priced routes answer 402 with the price, key-only routes 401, all as documented", async () => {
    const out = await runSchemathesis(
      `${stack.api.url}/openapi.json`,
      ["--phases", "examples,fuzzing", ...run(1)],
      work,
    );
    assert.equal(out.code, 0, failures(out.output));
  });
});

describe("hostile strings", { timeout: 600_000 }, () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      env: {
        RATE_LIMIT_PER_MINUTE: "1000000",
        RATE_LIMIT_READ_PER_MINUTE: "1000000",
        // An act waiting for text that never shows (a hostile string) ends at its budget: keep it short.
        ACT_TIMEOUT_MS: "2000",
      },
      slots: LANES,
      // Batch and crawl starts are taken (their request stored) and cancelled at once: with no jobs program
      // their pages stay queued instead of rendering the fixture site behind the pass's back.
      jobs: false,
    });
  });
  after(async () => stack?.stop());

  it("in every string field of every operation: a 2xx or a documented 4xx, a refusal costs nothing", async () => {
    // One account per lane. Acts need a live session, whose owner alone may act on it: they get a lane of their own.
    const keys = await Promise.all(Array.from({ length: LANES }, () => stack.newKey(100_000_000)));
    const owner = hostileClient(stack.api.url, keys[0]!.key);
    const open = await owner.send(
      "POST",
      "/web/v1/session",
      JSON.stringify({ url: `${stack.site.url}/form` }),
    );
    assert.equal(open.status, 200, open.text);
    const doc = (await owner.send("GET", "/openapi.json")).json;
    const calls = hostileCalls(doc, {
      url: `${stack.site.url}/article`,
      named: { sessionId: open.json.sessionId },
    });
    const lanes: Lane[] = keys.map(({ key }) => ({ key, calls: [] }));
    for (const [i, c] of calls.entries())
      lanes[c.operationId === "act" ? 0 : 1 + (i % (LANES - 1))]!.calls.push(c);
    const wrong = await runHostilePass(stack.api.url, lanes);
    await owner.send("DELETE", `/web/v1/session/${open.json.sessionId}`);
    assert.deepEqual(wrong, [], `${wrong.length} of ${calls.length} hostile calls answered wrongly`);
  });
});

describe("what the fuzzer found, each answered as the interface says", { timeout: 120_000 }, () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => stack?.stop());

  const send = async (path: string, init: RequestInit) => {
    const res = await fetch(stack.api.url + path, init);
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: the test reads whatever JSON came back
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body, type: res.headers.get("content-type") ?? "" };
  };
  const auth = () => ({ authorization: `Bearer ${stack.key}` });

  it("a sessions cursor in year 0 is a 400 naming cursor (PostgreSQL refused it: it was a 500)", async () => {
    const r = await stack.call(
      "GET",
      `/web/v1/account/sessions?cursor=${encodeURIComponent("0000-01-01T00:00:00Z~0")}`,
    );
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, "invalid_request");
    assert.equal(r.body.error.details[0].field, "cursor");
    const page = await stack.call("GET", "/web/v1/account/sessions?limit=1");
    assert.equal(page.status, 200, JSON.stringify(page.body));
  });

  it("a body that does not decode as its Content-Encoding says is a 400, not a 500", async () => {
    for (const encoding of ["gzip", "deflate", "br"]) {
      const r = await send("/web/v1/scrape", {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json", "content-encoding": encoding },
        body: '{"url":"https://example.com/"}',
      });
      assert.equal(r.status, 400, `${encoding}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, "invalid_request");
      assert.equal(r.body.error.details[0].field, "");
    }
    // A body that does decode is read as usual, and validated.
    const ok = await send("/web/v1/scrape", {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json", "content-encoding": "gzip" },
      body: gzipSync('{"url":5}'),
    });
    assert.equal(ok.status, 400);
    assert.equal(ok.body.error.details[0].field, "url");
  });

  it("malformed bodies get a 4xx JSON error naming what is wrong", async () => {
    const cases: Array<{
      name: string;
      body: BodyInit;
      type?: string;
      status: number;
      code: string;
      field?: string;
    }> = [
      // An empty body is read as {}: the answer names what is missing.
      { name: "empty", body: "", status: 400, code: "invalid_request", field: "url" },
      { name: "an array", body: "[1]", status: 400, code: "invalid_request", field: "" },
      { name: "NaN", body: '{"url":"https://a.example/","maxAge":NaN}', status: 400, code: "invalid_json" },
      {
        name: "a number as a string",
        body: '{"url":"https://a.example/","maxAge":"5"}',
        status: 400,
        code: "invalid_request",
        field: "maxAge",
      },
      {
        name: "an unknown field",
        body: '{"url":"https://a.example/","bogus":1}',
        status: 400,
        code: "invalid_request",
        field: "bogus",
      },
      {
        name: "duplicate keys (the last wins)",
        body: '{"url":"https://a.example/","url":5}',
        status: 400,
        code: "invalid_request",
        field: "url",
      },
      {
        name: "a wrong Content-Type",
        body: '{"url":5}',
        type: "text/plain",
        status: 400,
        code: "invalid_request",
        field: "url",
      },
      {
        name: "invalid UTF-8",
        body: Buffer.from([0x7b, 0x22, 0x75, 0x72, 0x6c, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        status: 400,
        code: "invalid_request",
        field: "url",
      },
      {
        name: "deep nesting",
        body: `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
        status: 400,
        code: "invalid_request",
        field: "",
      },
      { name: "too large", body: " ".repeat(11 * 1024 * 1024), status: 413, code: "payload_too_large" },
    ];
    for (const c of cases) {
      const r = await send("/web/v1/scrape", {
        method: "POST",
        headers: { ...auth(), "content-type": c.type ?? "application/json" },
        body: c.body,
      });
      assert.equal(r.status, c.status, `${c.name}: ${JSON.stringify(r.body).slice(0, 300)}`);
      assert.match(r.type, /application\/json/, c.name);
      assert.equal(r.body.error.code, c.code, c.name);
      if (c.field !== undefined) assert.equal(r.body.error.details[0].field, c.field, c.name);
    }
  });

  it("what the hostile strings found: an undecodable path is a 400, a long one a documented 431; fields named", async () => {
    // A lone surrogate's bytes (WTF-8) are not UTF-8: the router cannot decode the id (it was a 500).
    const undecodable = await stack.call("DELETE", "/web/v1/crawl/j_%ED%A0%80");
    assert.equal(undecodable.status, 400, JSON.stringify(undecodable.body));
    assert.equal(undecodable.body.error.code, "invalid_request");
    const long = await stack.call("GET", `/web/v1/crawl/${"x".repeat(100_000)}`);
    assert.equal(long.status, 431);
    const doc = (await send("/openapi.json", {})).body;
    const documented = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    for (const statuses of [
      documented("/web/v1/crawl/{id}", "delete"),
      documented("/web/v1/search/{provider}", "get"),
    ])
      for (const status of ["400", "431"]) assert.ok(statuses.includes(status), status);
    // A bad value deep in an action names its field, not "not a known action form" (the form is known).
    const act = await stack.post("/web/v1/act", {
      sessionId: "s",
      actions: [{ click: { ref: "e1", button: "sideways" } }],
    });
    assert.equal(act.status, 400);
    assert.deepEqual(
      act.body.error.details.map((d: { field: string }) => d.field),
      ["actions.0.click.button"],
    );
  });

  it("query strings with arrays or unknown fields are a 400 naming the parameter", async () => {
    const twice = await stack.call("GET", "/web/v1/account/transactions?limit=1&limit=2");
    assert.equal(twice.status, 400);
    assert.equal(twice.body.error.details[0].field, "limit");
    const bracket = await stack.call("GET", "/web/v1/account/transactions?cursor[]=1");
    assert.equal(bracket.status, 400);
    assert.equal(bracket.body.error.details[0].field, "cursor[]");
    const cursor = await stack.call("GET", "/web/v1/account/transactions?cursor=abc");
    assert.equal(cursor.status, 400);
    assert.equal(cursor.body.error.details[0].field, "cursor");
  });

  it("the document says what validation refuses, and the self-descriptions and meta routes answer", async () => {
    const doc = (await send("/openapi.json", {})).body;
    const inputs: Array<[string, string]> = [
      ["/web/v1/account/usage", "get"],
      ["/web/v1/account/sessions", "get"],
      ["/web/v1/crawl/{id}", "get"],
      ["/web/v1/scrape/batch/{id}", "delete"],
    ];
    for (const [path, method] of inputs)
      assert.ok(doc.paths[path][method].responses["400"], `${method} ${path} documents its 400`);
    assert.ok(doc.paths["/web/v1/search/{provider}"].get.responses["404"], "an unknown provider's 404");
    assert.ok(doc.paths["/mcp"].post.responses["406"], "the MCP transport's 406");
    const scrape = doc.components.schemas.ScrapeRequest;
    assert.deepEqual(scrape.oneOf, [{ required: ["url"] }, { required: ["html"] }, { required: ["cursor"] }]);
    assert.equal(scrape.properties.formats.uniqueItems, true);
    assert.ok(scrape.properties.url.pattern, "URLs publish their shape");
    for (const path of ["/llms.txt", "/metrics", "/web/v1/scrape", "/web/v1/crawl", "/healthz"]) {
      const r = await send(`${path}?x=1&x=2`, {});
      assert.equal(r.status, 200, path);
    }
    const mcpGet = await send("/mcp", {});
    assert.equal(mcpGet.status, 405);
    assert.equal(mcpGet.body.error.code, "method_not_allowed");
  });
});
