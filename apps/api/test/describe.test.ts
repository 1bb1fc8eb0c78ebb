import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeRoute } from "../src/describe.ts";
import { PRICED_OPERATIONS } from "../src/operations/index.ts";

describe("route self-descriptions come from the contracts", () => {
  it("every operation route has a request schema, price, auth and example", () => {
    for (const route of PRICED_OPERATIONS) {
      const doc = describeRoute(route, { wallets: false }) as {
        request: { schema: { properties: Record<string, unknown> } };
        price: string;
      };
      assert.ok(Object.keys(doc.request.schema.properties).length > 0, route.path);
      assert.match(doc.price, /\$\d/, route.path);
    }
  });
  it("says how each configuration answers a POST without key or payment", () => {
    const route = (path: string) => PRICED_OPERATIONS.find((r) => r.path === path)!;
    type Doc = { auth: string; payment: unknown };
    const keysOnly = describeRoute(route("/web/v1/scrape"), { wallets: false }) as Doc;
    assert.deepEqual(keysOnly.payment, {
      payWith: ["api_key"],
      payWithJsonFormat: ["api_key"],
      withoutPayment: { status: 402, code: "payment_required", paymentRequiredHeader: false },
    });
    assert.match(keysOnly.auth, /this deployment takes no wallet payments/);
    const wallets = describeRoute(route("/web/v1/scrape"), { wallets: true }) as Doc;
    assert.deepEqual(wallets.payment, {
      payWith: ["api_key", "x402"],
      payWithJsonFormat: ["api_key"],
      withoutPayment: { status: 402, code: "payment_required", paymentRequiredHeader: true },
    });
    assert.match(wallets.auth, /PAYMENT-REQUIRED header carries the x402 quote/);
    for (const setup of [{ wallets: false }, { wallets: true }]) {
      const crawl = describeRoute(route("/web/v1/crawl"), setup) as Doc;
      assert.deepEqual(crawl.payment, {
        payWith: ["api_key"],
        withoutPayment: { status: 402, code: "payment_required", paymentRequiredHeader: false },
      });
      assert.match(crawl.auth, /Needs an API key/);
    }
  });
  it("carries the spec's defaults and limits", () => {
    const crawl = PRICED_OPERATIONS.find((r) => r.path === "/web/v1/crawl")!;
    const props = (
      describeRoute(crawl, { wallets: true }) as {
        request: { schema: { properties: Record<string, { default?: unknown; maximum?: number }> } };
      }
    ).request.schema.properties;
    assert.equal(props.limit!.default, 25);
    assert.equal(props.limit!.maximum, 200);
    assert.equal(props.maxDepth!.default, 2);
  });
});
