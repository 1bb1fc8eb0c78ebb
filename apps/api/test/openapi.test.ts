import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadConfig } from "@browserfleet/config";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createApp } from "../src/app.ts";
import type { ApiContext } from "../src/context.ts";
import { buildLlmsTxt, buildOpenApi } from "../src/openapi.ts";

/** Every route the express app serves, as "METHOD /path/{param}". */
function servedRoutes(): string[] {
  const ctx = { config: loadConfig({}), metrics: { httpDuration: { startTimer: () => () => {} } } };
  const app = createApp(ctx as unknown as ApiContext) as unknown as { router: { stack: Layer[] } };
  type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
  const out = new Set<string>();
  const walk = (stack: Layer[]) => {
    for (const l of stack) {
      if (l.route)
        for (const m of Object.keys(l.route.methods))
          out.add(`${m.toUpperCase()} ${l.route.path.replace(/:(\w+)/g, "{$1}")}`);
      else if (l.handle?.stack) walk(l.handle.stack);
    }
  };
  walk(app.router.stack);
  return [...out].sort();
}

describe("OpenAPI document", () => {
  const doc = buildOpenApi() as {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, unknown>>;
  };

  test("is a valid OpenAPI 3.1 document with the interface's version", async () => {
    const result = await new Validator().validate(doc as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
    const broken = await new Validator().validate({ ...doc, info: { title: "x" } } as never);
    assert.equal(broken.valid, false, "the validator does check (info.version is required)");
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "1.0.1");
  });

  test("covers every route the api serves, and nothing it does not", () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    assert.deepEqual(documented, servedRoutes());
  });

  test("priced operations document their request, response and error bodies", () => {
    const scrape = doc.paths["/web/v1/scrape"]?.post as {
      requestBody: unknown;
      responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }>;
    };
    assert.ok(scrape.requestBody);
    assert.equal(
      scrape.responses["200"]?.content?.["application/json"]?.schema.$ref,
      "#/components/schemas/ScrapeResponse",
    );
    for (const status of ["400", "401", "402", "429", "502", "503", "504"])
      assert.equal(
        scrape.responses[status]?.content?.["application/json"]?.schema.$ref,
        "#/components/schemas/ErrorBody",
      );
  });

  test("llms.txt names every operation path", () => {
    const text = buildLlmsTxt();
    for (const p of [
      "/web/v1/scrape",
      "/web/v1/session",
      "/web/v1/act",
      "/web/v1/crawl",
      "/web/v1/search/{provider}",
    ])
      assert.ok(text.includes(p), p);
  });
});
