import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readResult } from "../src/results.ts";

const bytes = (v: unknown) => new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));
const ok = {
  jobId: "job_1",
  pageId: 4,
  taskId: "t-4",
  reply: {
    ok: true,
    result: {
      success: true,
      data: { markdown: "# A" },
      errors: {},
      metadata: { url: "https://e.com/", formats: ["markdown"], renders: 1, browserMsUsed: 1, ms: 1 },
    },
  },
  links: ["https://e.com/b"],
};

describe("a page result as the jobs program reads it", () => {
  it("is the message itself when it matches the contract", () => {
    assert.deepEqual(readResult(bytes(ok)), { result: ok });
  });

  it("that names its page but is malformed is that page's failure, with the fields at fault", () => {
    const read = readResult(bytes({ ...ok, reply: { ok: true, result: { success: true } } }));
    assert.match(read.problem ?? "", /^malformed page result: reply\.result\.data: /);
    assert.deepEqual(read.result, {
      jobId: "job_1",
      pageId: 4,
      taskId: "t-4",
      reply: {
        ok: false,
        error: {
          code: "internal",
          message: `the browser worker's result could not be read (${read.problem})`,
          status: 500,
        },
      },
    });
  });

  it("that names no page, or is not JSON, is only a problem", () => {
    const noPage = readResult(bytes({ reply: ok.reply }));
    assert.equal(noPage.result, undefined);
    assert.match(noPage.problem ?? "", /^malformed page result: jobId: /);
    const garbage = readResult(bytes("{"));
    assert.equal(garbage.result, undefined);
    assert.match(garbage.problem ?? "", /^a page result that is not JSON: /);
  });
});
