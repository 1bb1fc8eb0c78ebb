import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import {
  actRequest,
  batchRequest,
  COOKIE_NAME,
  COOKIE_PATH,
  COOKIE_VALUE,
  cleanStoredText,
  crawlRequest,
  detailsFromZod,
  FIELD_VALUE,
  feedbackRequest,
  jsonObject,
  LINE,
  mapRequest,
  scrapeRequest,
  searchRequest,
  sessionRequest,
  TEXT,
  type TextRule,
  text,
  textProblem,
} from "../src/index.ts";

const LONE_HIGH = String.fromCharCode(0xd800);
const LONE_LOW = String.fromCharCode(0xdc00);
/** What every rule takes: other scripts, right-to-left and zero-width characters, emoji (a surrogate pair). */
const ORDINARY = ["plain", "מימין לשמאל", "a\u202eb", "zero\u200bwidth", "\u{1F600}", "é"];

const taken = (rule: TextRule, value: string) => textProblem(value, rule) === undefined;

describe("string rules", () => {
  it("every rule takes ordinary text and refuses NUL and lone surrogates, saying where", () => {
    for (const rule of [TEXT, LINE, FIELD_VALUE, COOKIE_NAME, COOKIE_VALUE]) {
      for (const value of ORDINARY) assert.ok(taken(rule, value), `${rule.pattern} takes ${value}`);
      assert.match(textProblem("ab\u0000", rule)!, /NUL|control|cookie/);
      assert.match(textProblem(`ab${LONE_HIGH}c`, rule)!, /lone surrogate.*U\+D800 at character 3/);
      assert.match(textProblem(`${LONE_LOW}`, rule)!, /lone surrogate.*U\+DC00 at character 1/);
    }
    assert.match(textProblem("ab\u0000", TEXT)!, /NUL \(U\+0000\); found U\+0000 at character 3/);
  });

  it("text keeps newlines and tabs; one line and field values do not take CR or LF; field values take tab", () => {
    assert.ok(taken(TEXT, "line one\r\nline two\ttab\u0001"));
    assert.match(textProblem("a\nb", LINE)!, /one line.*U\+000A at character 2/);
    assert.equal(taken(LINE, "a\tb"), false);
    assert.equal(taken(LINE, "a\u007fb"), false);
    assert.ok(taken(FIELD_VALUE, "a\tb"));
    for (const bad of ["a\rb", "a\nb", "a\u0000b", "a\u0001b", "a\u007fb"])
      assert.match(textProblem(bad, FIELD_VALUE)!, /HTTP field value/, JSON.stringify(bad));
  });

  it("cookies as Chromium takes them: no controls, ';', '=' in a name, space first or last", () => {
    for (const bad of [" a", "a ", "a=b", "a;b", "a\tb", ""])
      assert.equal(taken(COOKIE_NAME, bad), false, bad);
    for (const bad of [" v", "v ", "a;b", "a\tb"]) assert.equal(taken(COOKIE_VALUE, bad), false, bad);
    for (const good of ["a b", "a=b", '"q"', "", "a,b"]) assert.ok(taken(COOKIE_VALUE, good), good);
    assert.ok(taken(COOKIE_PATH, "/a b/c"));
    for (const bad of ["a", "/a ", "/a;b", "/a\nb"]) assert.equal(taken(COOKIE_PATH, bad), false, bad);
  });

  it("the published pattern is the check: a JSON Schema validator and the api agree", () => {
    const samples = [...ORDINARY, "", " ", "a\u0000", "a\r\n", "a\t", "\u007f", " a", "a;", "/x", "/x ", "="];
    for (const rule of [TEXT, LINE, FIELD_VALUE, COOKIE_NAME, COOKIE_VALUE, COOKIE_PATH]) {
      const schema = z.toJSONSchema(text(rule)) as { pattern: string };
      assert.equal(schema.pattern, rule.pattern);
      for (const s of samples)
        assert.equal(
          new RegExp(schema.pattern, "u").test(s),
          text(rule).safeParse(s).success,
          `${rule.pattern}: ${JSON.stringify(s)}`,
        );
    }
  });

  it("stored text keeps what PostgreSQL can hold and replaces the rest with U+FFFD, keeping its length", () => {
    const sent = `nul\u0000 high${LONE_HIGH} low${LONE_LOW} pair\u{1F600} rtl\u202e crlf\r\n`;
    const stored = cleanStoredText(sent);
    assert.equal(stored, "nul\ufffd high\ufffd low\ufffd pair\u{1F600} rtl\u202e crlf\r\n");
    assert.equal(stored.length, sent.length);
    assert.equal(
      cleanStoredText(`${LONE_LOW}${LONE_HIGH}`),
      "\ufffd\ufffd",
      "a pair in the wrong order is two lone halves",
    );
  });

  it("a JSON object passed on is checked to its last key and string, naming where", () => {
    const schema = jsonObject();
    assert.ok(schema.safeParse({ type: "object", properties: { "né\u202e": { enum: ["a\r\n"] } } }).success);
    const key = schema.safeParse({ properties: { "a\u0000": {} } });
    assert.deepEqual(
      detailsFromZod(key.error!).map((d) => d.field),
      ["properties.a\u0000"],
    );
    const deep = schema.safeParse({ anyOf: [{ const: 1 }, { enum: ["ok", `x${LONE_HIGH}`] }] });
    assert.deepEqual(
      detailsFromZod(deep.error!).map((d) => d.field),
      ["anyOf.1.enum.1"],
    );
    // Far past any real JSON Schema: refused at a bound, never a stack overflow further on.
    const nested = JSON.parse(`${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`);
    const tooDeep = schema.safeParse(nested);
    assert.equal(tooDeep.success, false);
    assert.match(tooDeep.error!.issues[0]!.message, /nests deeper than 100 levels/);
  });
});

describe("string fields of requests", () => {
  const url = "https://a.example/";
  const fields = (r: { success: boolean; error?: z.ZodError }) => {
    assert.equal(r.success, false, "expected a refusal");
    return detailsFromZod(r.error!).map((d) => d.field);
  };

  it("a NUL in a header value, a URL, a selector, an action or a prompt is refused naming the field", () => {
    assert.deepEqual(fields(scrapeRequest.safeParse({ url, request: { headers: { "x-a": "a\u0000" } } })), [
      "request.headers.x-a",
    ]);
    assert.deepEqual(fields(scrapeRequest.safeParse({ url: `${url}\u0000` })), ["url"]);
    assert.deepEqual(fields(batchRequest.safeParse({ urls: [url, `${url}\r\n`] })), ["urls.1"]);
    assert.deepEqual(fields(sessionRequest.safeParse({ url, wait: { selector: "a\u0000" } })), [
      "wait.selector",
    ]);
    assert.deepEqual(
      fields(crawlRequest.safeParse({ url, json: { prompt: `p${LONE_HIGH}` }, includePaths: ["/a\n"] })),
      ["includePaths.0", "json.prompt"],
    );
    assert.deepEqual(
      fields(
        actRequest.safeParse({
          sessionId: "s",
          actions: [{ press: "Enter" }, { type: { ref: "e1", text: "\u0000" } }],
        }),
      ),
      ["actions.1.type.text"],
    );
    assert.deepEqual(fields(searchRequest.safeParse({ query: "a\u0000b" })), ["query"]);
    assert.deepEqual(fields(mapRequest.safeParse({ url, search: "a\u0000" })), ["search"]);
  });

  it("header names are RFC 9110 tokens the browser lets a caller set", () => {
    for (const name of [
      "Host",
      "content-length",
      "Transfer-Encoding",
      "proxy-authorization",
      "Connection",
      "x\u0000",
      "a b",
    ]) {
      const r = scrapeRequest.safeParse({ url, request: { headers: { [name]: "v" } } });
      assert.deepEqual(fields(r), [`request.headers.${name}`], name);
    }
    const ok = scrapeRequest.safeParse({
      url,
      request: { headers: { "X-Custom": "a\u202eb", Referer: url, Cookie: "a=b" } },
    });
    assert.ok(ok.success);
  });

  it("a cookie that Chromium would refuse is refused here: bytes of UTF-8, expiry", () => {
    const cookie = (c: Record<string, unknown>) =>
      scrapeRequest.safeParse({ url, request: { cookies: [{ name: "n", value: "v", ...c }] } });
    assert.deepEqual(fields(cookie({ value: "é".repeat(2048) })), ["request.cookies.0.value"]);
    assert.ok(cookie({ value: "é".repeat(2046) }).success);
    assert.deepEqual(fields(cookie({ domain: "a.example", path: `/${"é".repeat(512)}` })), [
      "request.cookies.0.path",
    ]);
    assert.deepEqual(fields(cookie({ domain: "exa mple.com" })), ["request.cookies.0.domain"]);
    assert.ok(cookie({ domain: ".bücher.example", path: "/" }).success);
    assert.deepEqual(fields(cookie({ expires: -2 })), ["request.cookies.0.expires"]);
    assert.ok(cookie({ expires: -1 }).success);
  });

  it("feedback is cleaned, not refused, for what it holds; its bounds still hold", () => {
    const r = feedbackRequest.parse({ message: `a\u0000b${LONE_HIGH}`, sessionId: "s\u0000" });
    assert.equal(r.message, "a\ufffdb\ufffd");
    assert.equal(r.sessionId, "s\ufffd");
    assert.deepEqual(fields(feedbackRequest.safeParse({ message: "x".repeat(10_001) })), ["message"]);
    assert.deepEqual(fields(feedbackRequest.safeParse({ message: "m", url: "https://a.example/\u0000" })), [
      "url",
    ]);
  });

  it("every string field of every request publishes what it takes, or is stored text that is cleaned", () => {
    // Normalized before their check (search.ts), so their input has no pattern of its own.
    const normalized = new Set(["domains", "excludeDomains"]);
    const requests = {
      scrapeRequest,
      sessionRequest,
      actRequest,
      batchRequest,
      crawlRequest,
      mapRequest,
      searchRequest,
      feedbackRequest,
    };
    for (const [name, schema] of Object.entries(requests)) {
      const unchecked: string[] = [];
      const walk = (node: unknown, path: string[]) => {
        if (node === null || typeof node !== "object") return;
        const n = node as Record<string, unknown>;
        if (n.type === "string" && !n.pattern && !n.enum && !n.const && !n.format) {
          const stored = String(n.description ?? "").includes("U+FFFD");
          if (!stored && !normalized.has(path.find((p) => normalized.has(p)) ?? ""))
            unchecked.push(path.join("."));
        }
        for (const [k, v] of Object.entries(n)) walk(v, [...path, k]);
      };
      walk(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }), []);
      assert.deepEqual(unchecked, [], `${name}: string fields without a published rule`);
    }
  });
});
