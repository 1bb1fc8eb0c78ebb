/**
 * The json format end to end: a real stack whose LLM_BASE_URL points at a local server speaking
 * OpenAI's chat-completions format. The browser renders the page's markdown; the api (or the jobs
 * program, for batch pages) asks the model and validates the answer against the caller's schema.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FakeLlm, startFakeLlm, userMessage } from "../helpers/fake-llm.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
  stack = await startStack({
    env: { LLM_BASE_URL: llm.url, LLM_API_KEY: "sk-local", LLM_MODEL: "local-model" },
  });
});
after(async () => {
  await stack?.stop();
  await llm?.close();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const balanceOf = async (key: string) =>
  (await stack.call("GET", "/web/v1/account", auth(key))).body.balance.micros as number;
const schema = {
  type: "object",
  properties: { title: { type: "string" }, people: { type: "array", items: { type: "string" } } },
  required: ["title"],
};

describe("json format", () => {
  test("extracts with the caller's prompt and schema from the rendered page, and charges the json price", async () => {
    llm.answer = (body) => {
      const page = userMessage(body);
      const title = /^# (.+)$/m.exec(page)?.[1] ?? "";
      const people = [...page.matchAll(/^\| (Alice|Bob) /gm)].map((m) => m[1] as string);
      return { content: JSON.stringify({ title, people }) };
    };
    const { key } = await stack.newKey(1_000_000);
    const r = await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/article`, formats: ["json"], json: { prompt: "title and people", schema } },
      auth(key),
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, { json: { title: "The Fixture Article", people: ["Alice", "Bob"] } });
    assert.deepEqual(r.body.metadata.formats, ["json"]);
    const sent = llm.requests.at(-1)!;
    assert.equal(sent.authorization, "Bearer sk-local");
    assert.equal(sent.body.model, "local-model");
    assert.match(userMessage(sent.body), /title and people/);
    assert.equal(await balanceOf(key), 1_000_000 - 3_000);
  });

  test("an answer that breaks the schema is under errors.json, free; the other formats still come", async () => {
    llm.answer = () => ({ content: JSON.stringify({ people: "nobody" }) });
    const { key } = await stack.newKey(1_000_000);
    const r = await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/article`, formats: ["markdown", "json"], json: { schema } },
      auth(key),
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.data.markdown, /The Fixture Article/);
    assert.equal(r.body.data.json, undefined);
    assert.equal(r.body.errors.json.code, "json_invalid");
    assert.match(r.body.errors.json.message, /title/);
    assert.equal(await balanceOf(key), 1_000_000 - 1_000, "only markdown is charged");
  });

  test("a model endpoint that fails is reported and not charged", async () => {
    llm.answer = () => ({ status: 503, error: "model is loading" });
    const { key } = await stack.newKey(1_000_000);
    const r = await stack.post(
      "/web/v1/scrape",
      { url: `${stack.site.url}/article`, formats: ["json"], json: { prompt: "the title" } },
      auth(key),
    );
    assert.equal(r.body.success, false);
    assert.equal(r.body.errors.json.code, "llm_failed");
    assert.match(r.body.errors.json.message, /503.*model is loading/);
    assert.equal(await balanceOf(key), 1_000_000);
    const metrics = await (await fetch(`${stack.api.url}/metrics`)).text();
    const refunded = Number(/fleet_refunded_micros_total\{route="scrape"\} (\d+)/.exec(metrics)?.[1] ?? 0);
    assert.ok(refunded >= 3_000, `the held price comes back and is counted (${refunded})`);
  });

  test("json needs a key, something to extract, and a usable schema", async () => {
    const keyless = await stack.postKeyless("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["json"],
      json: { prompt: "x" },
    });
    // A quote, not a refusal: json is key-only, so the 402 names its price and asks for a key.
    assert.equal(keyless.status, 402);
    assert.equal(keyless.body.error.code, "payment_required");
    assert.ok(keyless.body.error.price, "the 402 quotes the price");
    assert.deepEqual(keyless.body.error.payWith, ["api_key"]);
    assert.match(keyless.body.error.message, /API key/);
    const empty = await stack.post("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["json"],
      json: {},
    });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.details[0].field, "json");
    const bad = await stack.post("/web/v1/scrape", {
      url: `${stack.site.url}/article`,
      formats: ["json"],
      json: { schema: { type: "objekt" } },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details[0].field, "json.schema");
  });

  test("batch pages get json too, extracted by the jobs program, each charged once", async () => {
    llm.answer = (body) => ({
      content: JSON.stringify({ title: /^# (.+)$/m.exec(userMessage(body))?.[1] ?? "?" }),
    });
    const { key } = await stack.newKey(1_000_000);
    const start = await stack.post(
      "/web/v1/scrape/batch",
      { urls: [`${stack.site.url}/article`, `${stack.site.url}/page2`], formats: ["json"], json: { schema } },
      auth(key),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const job = await waitFor(
      "the batch to end",
      async () => {
        const body = (await stack.call("GET", start.body.url, auth(key))).body;
        assert.ok(["completed", "failed", "cancelled"].includes(body.status), `the batch is ${body.status}`);
        return body;
      },
      60_000,
      100,
    );
    assert.equal(job.status, "completed", JSON.stringify(job));
    assert.deepEqual(
      job.data.map((p: { data: { json: unknown } }) => p.data.json),
      [{ title: "The Fixture Article" }, { title: "Page Two" }],
    );
    assert.equal(await balanceOf(key), 1_000_000 - 2 * 3_000);
  });
});
