import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OPERATION_ROUTES } from "@browserfleet/contracts";
import { describeRoute } from "../src/describe.ts";

describe("route self-descriptions come from the contracts", () => {
  it("every operation route has a request schema, price, auth and example", () => {
    for (const route of OPERATION_ROUTES) {
      const doc = describeRoute(route) as {
        request: { schema: { properties: Record<string, unknown> } };
        price: string;
      };
      assert.ok(Object.keys(doc.request.schema.properties).length > 0, route.path);
      assert.match(doc.price, /\$\d/, route.path);
    }
  });
  it("carries the spec's defaults and limits", () => {
    const crawl = OPERATION_ROUTES.find((r) => r.path === "/web/v1/crawl")!;
    const props = (
      describeRoute(crawl) as {
        request: { schema: { properties: Record<string, { default?: unknown; maximum?: number }> } };
      }
    ).request.schema.properties;
    assert.equal(props.limit!.default, 25);
    assert.equal(props.limit!.maximum, 200);
    assert.equal(props.maxDepth!.default, 2);
  });
});
