import { createHash } from "node:crypto";
import {
  acceptedPayments,
  errorBody,
  INTERFACE_VERSION,
  type PaymentSetup,
  paymentTerms,
} from "@browserfleet/contracts";
import { PRICES } from "@browserfleet/pricing";
import type { RequestHandler } from "express";
import { z } from "zod";
import type { PricedOperation } from "./operations/index.ts";

const jsonSchemaOf = (s: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(s, { io, unrepresentable: "any" });

/** The GET self-description of a priced operation, built from its contract, as this deployment takes payment. */
export function describeRoute(
  op: PricedOperation,
  setup: PaymentSetup,
  path = op.path,
): Record<string, unknown> {
  const route = op.priced;
  return {
    route: path,
    method: "POST",
    interfaceVersion: INTERFACE_VERSION,
    summary: op.summary,
    available: true,
    price: route.price.words,
    pricing: {
      rule: route.price.words,
      unitPricesMicros: PRICES,
      note: "micros are millionths of a dollar (USDC atomic units); a POST without key or payment answers 402 with the exact price of that call (error.price)",
    },
    auth: paymentTerms(route, setup),
    /** The keyless free allowance (MCP clients without a key), in the spec's words. */
    freeAllowance: route.allowance.words,
    payment: {
      payWith: acceptedPayments(route.payment === "key", setup),
      ...(route.jsonFormat ? { payWithJsonFormat: acceptedPayments(true, setup) } : {}),
      withoutPayment: {
        status: 402,
        code: "payment_required",
        paymentRequiredHeader: setup.wallets && route.payment === "any",
      },
    },
    ...(route.limits ? { limits: route.limits } : {}),
    ...(op.request
      ? { request: { contentType: "application/json", schema: jsonSchemaOf(op.request, "input") } }
      : {}),
    ...(op.response ? { response: { schema: jsonSchemaOf(op.response, "output") } } : {}),
    errors: {
      schema: jsonSchemaOf(errorBody, "output"),
      note: "400 invalid input (details name the field), 401 key malformed, invalid or revoked, 402 no key or payment (payment_required, with the exact price and payWith), a wallet payment refused or a balance too low (with the price), 404, 413, 429 (Retry-After, RateLimit headers), 503, 504",
    },
    example: { method: "POST", path, body: route.example },
  };
}

/** Serve a fixed JSON document with a strong ETag, answering 304 to a matching If-None-Match. */
export function cachedJson(doc: unknown, maxAgeSeconds = 3600): RequestHandler {
  const body = JSON.stringify(doc);
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  return (req, res) => {
    res.setHeader("Cache-Control", `public, max-age=${maxAgeSeconds}`);
    res.setHeader("ETag", etag);
    const inm = req.headers["if-none-match"];
    if (inm?.split(",").some((t) => t.trim() === etag || t.trim() === `W/${etag}`)) {
      res.status(304).end();
      return;
    }
    res.type("application/json").send(body);
  };
}
