import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadConfig } from "@browserfleet/config";
import type { ApiContext } from "../src/context.ts";
import { toolsFor } from "../src/mcp/tools.ts";
import { OPERATIONS, PRICED_OPERATIONS } from "../src/operations/index.ts";
import { toolsOf } from "../src/operations/operation.ts";

const SRC = join(import.meta.dirname, "../src");

/** A deployment with two search providers configured. */
const ctx = {
  config: loadConfig({
    SEARCH_BRAVE_API_KEY: "k",
    SEARCH_SEARXNG_BASE_URL: "http://127.0.0.1:9/",
  }),
} as unknown as ApiContext;

describe("the operations registry", () => {
  it("gives the MCP tools of the spec, a search tool per configured provider, the profile tools and the proxies", () => {
    assert.deepEqual(
      toolsFor(ctx).map((t) => t.name),
      [
        "web_scrape",
        "web_session_open",
        "web_act",
        "web_session_close",
        "web_scrape_batch",
        "web_batch_status",
        "web_map",
        "web_crawl",
        "web_crawl_status",
        "web_feedback",
        "web_search_brave",
        "web_search_searxng",
        "web_profiles",
        "web_profile_delete",
        "web_proxies",
      ],
    );
  });

  it("a tool of a POST takes the same contract as its REST body", () => {
    for (const op of OPERATIONS.filter((o) => o.method === "POST"))
      for (const tool of toolsOf(op, ctx)) {
        const served = toolsFor(ctx).find((t) => t.name === tool.name);
        assert.equal(served?.input, op.request, tool.name);
        assert.equal(served?.route.startsWith(`POST ${op.path.split("{")[0]}`), true, tool.name);
      }
  });

  it("names each method and path, each operationId and each tool once", () => {
    const unique = (xs: string[]) => assert.equal(new Set(xs).size, xs.length, xs.join(" "));
    unique(OPERATIONS.map((op) => `${op.method} ${op.path}`));
    unique(OPERATIONS.map((op) => op.name));
    unique(toolsFor(ctx).map((t) => t.name));
  });

  it("every operation is priced or free, and only priced POSTs are", () => {
    for (const op of OPERATIONS) {
      assert.notEqual(op.priced === undefined, op.free === undefined, op.name);
      if (op.priced) assert.equal(op.method, "POST", op.name);
    }
    assert.deepEqual(
      PRICED_OPERATIONS.map((op) => op.priced.allowance.name),
      ["scrape", "session", "act", "batch", "map", "crawl", "search"],
    );
  });

  it("writes the interface's paths in the operation files only", async () => {
    const files = (await readdir(SRC, { recursive: true })).filter(
      (f) => f.endsWith(".ts") && !f.startsWith("operations"),
    );
    for (const f of files) {
      const text = await readFile(join(SRC, f), "utf8");
      assert.doesNotMatch(
        text,
        /["'`]\/web\/v1/,
        `${f} writes a path of the interface; take it from its operation`,
      );
    }
  });
});
