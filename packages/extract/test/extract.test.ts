import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ScrapeRequest, ScrapeResponse } from "@browserfleet/contracts";
import { type FakeAnswer, type FakeLlm, startFakeLlm, userMessage } from "../../../test/helpers/fake-llm.ts";
import { browserRequest, completeJson, extractJson, schemaProblem } from "../src/index.ts";

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(() => fake.close());

const llm = () => ({ baseUrl: fake.url, apiKey: "sk-test", model: "test-model", timeoutMs: 2_000 });
const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
const page = "# Fresh Coffee\n\nBeans roasted daily.";

describe("extractJson", () => {
  test("asks for structured output with the caller's schema and returns the validated answer", async () => {
    const out = await extractJson({
      llm: llm(),
      markdown: page,
      json: { prompt: "the product name", schema },
      maxInputChars: 10_000,
    });
    assert.deepEqual(out, { ok: true, value: { title: "Fresh Coffee" } });
    const sent = fake.requests.at(-1)!;
    assert.equal(sent.authorization, "Bearer sk-test");
    assert.equal(sent.body.model, "test-model");
    assert.deepEqual(sent.body.response_format, {
      type: "json_schema",
      json_schema: { name: "extraction", schema, strict: false },
    });
    assert.match(userMessage(sent.body), /the product name/);
  });

  test("an answer that does not match the schema is refused with the reason", async () => {
    fake.answer = () => ({ content: JSON.stringify({ name: "x" }) });
    const out = await extractJson({ llm: llm(), markdown: page, json: { schema }, maxInputChars: 10_000 });
    assert.equal(out.ok, false);
    assert.equal((out as { code: string }).code, "json_invalid");
    assert.match((out as { message: string }).message, /title/);
  });

  test("refusals, endpoint errors, non-JSON and silence are outcomes, not exceptions", async () => {
    const cases: Array<[FakeAnswer, string]> = [
      [{ refusal: "I cannot help with that" }, "json_refused"],
      [{ status: 500, error: "overloaded" }, "llm_failed"],
      [{ content: "Sure! Here it is" }, "json_invalid"],
      [{ hang: true }, "llm_failed"],
    ];
    for (const [answer, code] of cases) {
      fake.answer = () => answer;
      const out = await extractJson({
        llm: { ...llm(), timeoutMs: 300 },
        markdown: page,
        json: { schema },
        maxInputChars: 10_000,
      });
      assert.equal(out.ok, false);
      assert.equal((out as { code: string }).code, code, JSON.stringify(answer));
    }
  });

  test("no endpoint configured says so", async () => {
    const out = await extractJson({
      llm: undefined,
      markdown: page,
      json: { schema },
      maxInputChars: 10_000,
    });
    assert.equal((out as { code: string }).code, "not_configured");
  });

  test("a long page is cut to the input budget and the model is told", async () => {
    fake.answer = () => ({ content: JSON.stringify({ title: "x" }) });
    await extractJson({
      llm: llm(),
      markdown: `# T\n\n${"word ".repeat(5_000)}`,
      json: { schema },
      maxInputChars: 1_000,
    });
    const user = userMessage(fake.requests.at(-1)!.body);
    assert.match(user, /cut to its first 1000 characters/);
    assert.ok(user.length < 2_000);
  });

  test("schemaProblem names a schema ajv cannot use", () => {
    assert.equal(schemaProblem(schema), undefined);
    assert.match(schemaProblem({ type: "objekt" }) ?? "", /json.schema/);
  });
});

describe("completeJson", () => {
  const req = { url: "https://shop.test/", formats: ["json"], json: { schema } } as unknown as ScrapeRequest;
  const rendered: ScrapeResponse = {
    success: true,
    data: { markdown: page },
    errors: {},
    metadata: { url: "https://shop.test/", formats: ["markdown"], renders: 1, browserMsUsed: 5, ms: 0 },
  };

  test("the browser renders markdown instead of json, and the answer has json only", async () => {
    assert.deepEqual(browserRequest(req).formats, ["markdown"]);
    assert.equal(browserRequest(req).json, undefined);
    fake.answer = () => ({ content: JSON.stringify({ title: "Fresh Coffee" }) });
    const out = await completeJson(req, rendered, { llm: llm(), maxInputChars: 10_000 });
    assert.deepEqual(out.data, { json: { title: "Fresh Coffee" } });
    assert.deepEqual(out.metadata.formats, ["json"]);
    assert.equal(out.success, true);
  });

  test("a failed extraction leaves the other formats and says why under errors.json", async () => {
    const both = { ...req, formats: ["markdown", "json"] } as unknown as ScrapeRequest;
    const out = await completeJson(both, rendered, { llm: undefined, maxInputChars: 10_000 });
    assert.deepEqual(Object.keys(out.data), ["markdown"]);
    assert.equal(out.errors.json?.code, "not_configured");
  });
});
