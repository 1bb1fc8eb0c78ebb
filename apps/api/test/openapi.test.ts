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

type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { securitySchemes: Record<string, unknown> };
};
type Post = {
  description: string;
  security: Array<Record<string, unknown>>;
  responses: Record<string, { headers?: Record<string, unknown> }>;
};

describe("OpenAPI document", () => {
  const doc = buildOpenApi({ wallets: false }) as Doc;
  const withWallets = buildOpenApi({ wallets: true }) as Doc;

  test("is a valid OpenAPI 3.1 document with the interface's version, with and without wallets", async () => {
    for (const d of [doc, withWallets]) {
      const result = await new Validator().validate(d as never);
      assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
    }
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

  test("says how an unpaid POST is answered on a deployment without wallets: a 402 with the price, keys only", () => {
    const post = (path: string) => doc.paths[path]?.post as Post;
    for (const path of ["/web/v1/scrape", "/web/v1/crawl", "/web/v1/act"]) {
      assert.deepEqual(post(path).security, [{ bearer: [] }], path);
      assert.equal(post(path).responses["402"]?.headers, undefined, `${path}: no PAYMENT-REQUIRED`);
      assert.match(post(path).description, /402 payment_required/, path);
    }
    assert.match(post("/web/v1/scrape").description, /takes no wallet payments/);
    assert.equal(doc.components.securitySchemes.x402, undefined);
  });

  test("with wallets: the x402 quote on routes wallets may pay, a key-only 402 on batch and crawl", () => {
    const post = (path: string) => withWallets.paths[path]?.post as Post;
    for (const path of ["/web/v1/scrape", "/web/v1/session", "/web/v1/act", "/web/v1/map"]) {
      assert.deepEqual(post(path).security, [{ bearer: [] }, { x402: [] }], path);
      assert.ok(post(path).responses["402"]?.headers?.["PAYMENT-REQUIRED"], path);
      assert.match(post(path).description, /PAYMENT-REQUIRED header carries the x402 quote/, path);
    }
    assert.match(post("/web/v1/scrape").description, /json format a key is needed even here/);
    for (const path of ["/web/v1/crawl", "/web/v1/scrape/batch"]) {
      assert.deepEqual(post(path).security, [{ bearer: [] }], path);
      assert.equal(post(path).responses["402"]?.headers, undefined, path);
      assert.match(post(path).description, /not open to wallet payments/, path);
    }
  });

  test("llms.txt names every operation path, and how to pay on this deployment", () => {
    assert.match(
      buildLlmsTxt({ wallets: false }),
      /takes no wallet payments. A priced POST without a key answers 402/,
    );
    assert.match(buildLlmsTxt({ wallets: true }), /x402 quote in the PAYMENT-REQUIRED header/);
    const text = buildLlmsTxt({ wallets: false });
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
