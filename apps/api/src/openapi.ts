import {
  accountView,
  ERROR_STATUS,
  errorBody,
  feedbackRequest,
  feedbackResponse,
  INTERFACE_VERSION,
  jobStatusResponse,
  OPERATION_ROUTES,
  type OperationRoute,
  type PaymentSetup,
  paymentTerms,
  sessionCloseResponse,
  sessionsView,
  transactionsView,
  usageView,
} from "@browserfleet/contracts";
import { PRICE_RULES } from "@browserfleet/pricing";
import { z } from "zod";

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

/** A contract as an OpenAPI 3.1 schema (JSON Schema 2020-12, which 3.1 uses as is). */
function schemaOf(s: z.ZodType, io: "input" | "output"): Schema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Schema;
  return rest;
}

const json = (schema: Schema) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid input: details[] names each field at fault",
  401: "API key malformed, invalid or revoked (or missing where a route needs one: account views, job status)",
  402: "No key or payment (payment_required: exact price in error.price, ways to pay in error.payWith), a wallet payment refused, or a balance too low",
  404: "Not found, or not yours",
  405: "Method not allowed (Allow header lists the ones that are)",
  410: "The session is gone (session_lost, session_closed)",
  413: "Body too large",
  429: "Rate limited or no browser capacity: Retry-After and RateLimit headers",
  500: "Internal error",
  502: "The page, the provider or the result failed (render_failed, upstream_failed, result_too_large)",
  503: "No browser worker or the work queue is unreachable: Retry-After",
  504: "The work did not finish in time",
};

/** The error codes answered with each status, from the one table the api uses. */
function codesFor(status: number): string[] {
  return Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([c]) => c);
}

/** `quoteHeader`: this 402 carries the x402 quote (a route wallets may pay, on a deployment that takes them). */
function errors(statuses: number[], quoteHeader = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of statuses) {
    const codes = codesFor(s);
    out[String(s)] = {
      description: `${STATUS_TEXT[s] ?? "Error"}${codes.length ? ` (codes: ${codes.join(", ")})` : ""}`,
      content: json(ref("ErrorBody")),
      ...(s === 402 && quoteHeader
        ? {
            headers: {
              "PAYMENT-REQUIRED": {
                description:
                  "Base64 JSON x402 v2 payment requirements: the exact quote of this call (on payment_required and refused payments)",
                schema: { type: "string" },
              },
            },
          }
        : {}),
      ...(s === 429 || s === 503 ? { headers: { "Retry-After": { schema: { type: "integer" } } } } : {}),
    };
  }
  return out;
}

const PRICED_ERRORS = [400, 401, 402, 413, 429, 500, 502, 503, 504];
const READ_ERRORS = [401, 404, 429];
const PAID = [{ bearer: [] }, { x402: [] }];
const KEYED = [{ bearer: [] }];

const describeOp = (route: OperationRoute, name: string): Operation => ({
  operationId: `describe${name}`,
  summary: `Self-description of POST ${route.path}: request schema, price, limits, auth, example`,
  tags: ["self-description"],
  responses: {
    "200": {
      description: "The self-description (Cache-Control, ETag)",
      headers: { ETag: { schema: { type: "string" } } },
      content: json(ref("SelfDescription")),
    },
    "304": { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

const SELF_DESCRIPTION: Schema = {
  type: "object",
  required: ["route", "method", "interfaceVersion", "summary", "price", "auth", "request"],
  properties: {
    route: { type: "string" },
    method: { const: "POST" },
    interfaceVersion: { type: "string" },
    summary: { type: "string" },
    available: { type: "boolean" },
    price: { type: "string" },
    pricing: { type: "object" },
    auth: { type: "string" },
    payment: { type: "object" },
    limits: { type: "string" },
    request: { type: "object" },
    response: { type: "object" },
    errors: { type: "object" },
    example: { type: "object" },
  },
};

const pascal = (path: string) =>
  path
    .replace("/web/v1/", "")
    .split(/[/{}]+/)
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");

const providerParam = {
  name: "provider",
  in: "path",
  required: true,
  description: "A configured search provider (GET /web/v1/search lists them), e.g. brave, tavily, searxng",
  schema: { type: "string" },
};
const idParam = (what: string) => ({
  name: "id",
  in: "path",
  required: true,
  description: what,
  schema: { type: "string" },
});

/** The OpenAPI 3.1 document of the whole api, generated from the contracts, as this deployment takes payment. */
export function buildOpenApi(setup: PaymentSetup): Record<string, unknown> {
  const schemas: Record<string, Schema> = {
    ErrorBody: schemaOf(errorBody, "output"),
    SelfDescription: SELF_DESCRIPTION,
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (path: string, method: string, op: Operation) => {
    paths[path] = { ...paths[path], [method]: op };
  };

  for (const route of OPERATION_ROUTES) {
    const name = pascal(route.path);
    schemas[`${name}Request`] = schemaOf(route.request, "input");
    if (route.response) schemas[`${name}Response`] = schemaOf(route.response, "output");
    const params = route.path.includes("{provider}") ? [providerParam] : [];
    add(route.path, "get", { ...describeOp(route, name), ...(params.length ? { parameters: params } : {}) });
    const wallets = setup.wallets && route.payment === "any";
    add(route.path, "post", {
      operationId: name.charAt(0).toLowerCase() + name.slice(1),
      summary: route.summary,
      description: `Price: ${PRICE_RULES[route.pricing]}\n\nAuth: ${paymentTerms(route, setup)}${route.limits ? `\n\nLimits: ${route.limits}` : ""}`,
      tags: ["operations"],
      ...(params.length ? { parameters: params } : {}),
      security: wallets ? PAID : KEYED,
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref(`${name}Request`), example: route.example } },
      },
      responses: {
        "200": {
          description: "Done (a batch or crawl: started; poll its url)",
          ...(route.response ? { content: json(ref(`${name}Response`)) } : {}),
          ...(wallets
            ? {
                headers: {
                  "PAYMENT-RESPONSE": {
                    description: "x402 settlement, when paid by wallet",
                    schema: { type: "string" },
                  },
                },
              }
            : {}),
        },
        ...errors(
          [...PRICED_ERRORS, ...(route.pricing === "act" ? [404, 410] : []), ...(params.length ? [404] : [])],
          wallets,
        ),
      },
    });
  }

  schemas.JobStatus = schemaOf(jobStatusResponse, "output");
  for (const [kind, path] of [
    ["batch", "/web/v1/scrape/batch/{id}"],
    ["crawl", "/web/v1/crawl/{id}"],
  ] as const) {
    const parameters = [
      idParam(`The jobId of the ${kind}`),
      {
        name: "cursor",
        in: "query",
        schema: { type: "string" },
        description: "The next of the previous answer",
      },
      { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
    ];
    add(path, "get", {
      operationId: `${kind}Status`,
      summary: `Status, counts and the next finished pages of a ${kind} job (free)`,
      tags: ["jobs"],
      security: KEYED,
      parameters,
      responses: {
        "200": { description: "The job", content: json(ref("JobStatus")) },
        ...errors(READ_ERRORS),
      },
    });
    add(path, "delete", {
      operationId: `${kind}Cancel`,
      summary: `Cancel a ${kind} job: queued pages are dropped and their hold refunded (free)`,
      tags: ["jobs"],
      security: KEYED,
      parameters: [parameters[0]],
      responses: {
        "200": { description: "The job after cancelling", content: json(ref("JobStatus")) },
        ...errors(READ_ERRORS),
      },
    });
  }

  schemas.SessionClose = schemaOf(sessionCloseResponse, "output");
  add("/web/v1/session/{id}", "delete", {
    operationId: "sessionClose",
    summary: "Close a live session and free its browser slot (free, idempotent)",
    tags: ["operations"],
    security: PAID,
    parameters: [idParam("The sessionId")],
    responses: {
      "200": { description: "Closed", content: json(ref("SessionClose")) },
      ...errors([...READ_ERRORS, 410]),
    },
  });

  schemas.FeedbackRequest = schemaOf(feedbackRequest, "input");
  schemas.FeedbackResponse = schemaOf(feedbackResponse, "output");
  add("/web/v1/feedback", "post", {
    operationId: "feedback",
    summary: "Tell the operators about a wrong result, a price, a bug or a wish (free, no key needed)",
    tags: ["operations"],
    security: PAID,
    requestBody: { required: true, content: json(ref("FeedbackRequest")) },
    responses: {
      "200": { description: "Stored", content: json(ref("FeedbackResponse")) },
      ...errors([400, 413, 429]),
    },
  });

  add("/web/v1/search", "get", {
    operationId: "searchProviders",
    summary: "The search providers this deployment configured, each with its path and MCP tool",
    tags: ["self-description"],
    responses: { "200": { description: "Providers", content: json({ type: "object" }) } },
  });

  const views: Array<[string, string, z.ZodType, string]> = [
    ["/web/v1/account", "account", accountView, "The account, its balance and the key used"],
    ["/web/v1/account/usage", "accountUsage", usageView, "Calls and spend per route and day"],
    [
      "/web/v1/account/transactions",
      "accountTransactions",
      transactionsView,
      "The ledger, newest first, paginated",
    ],
    ["/web/v1/account/sessions", "accountSessions", sessionsView, "Open and recent live sessions"],
  ];
  for (const [path, id, schema, summary] of views) {
    const name = id.charAt(0).toUpperCase() + id.slice(1);
    schemas[name] = schemaOf(schema, "output");
    add(path, "get", {
      operationId: id,
      summary,
      tags: ["account"],
      security: KEYED,
      responses: { "200": { description: summary, content: json(ref(name)) }, ...errors([401, 429]) },
    });
  }

  add("/mcp", "post", {
    operationId: "mcp",
    summary:
      "MCP over JSON-RPC 2.0, stateless streamable HTTP, protocol 2025-06-18: the same operations as tools (tools/list shows them)",
    tags: ["mcp"],
    security: PAID,
    requestBody: {
      required: true,
      content: json({ type: "object", required: ["jsonrpc"], properties: { jsonrpc: { const: "2.0" } } }),
    },
    responses: {
      "200": { description: "JSON-RPC response", content: json({ type: "object" }) },
      "202": { description: "Notification accepted" },
      "400": {
        description: "Bad JSON-RPC message or MCP-Protocol-Version",
        content: json({ type: "object" }),
      },
      "403": {
        description: "Origin not allowed (or a foreign Host on a loopback server)",
        content: json({ type: "object" }),
      },
    },
  });
  for (const method of ["get", "delete"])
    add("/mcp", method, {
      operationId: `mcp${method === "get" ? "Get" : "Delete"}`,
      summary: "Not used: the endpoint is stateless",
      tags: ["mcp"],
      responses: { "405": { description: "Method not allowed" } },
    });

  const plain = (path: string, id: string, summary: string, type: string) =>
    add(path, "get", {
      operationId: id,
      summary,
      tags: ["operations-meta"],
      responses: {
        "200": {
          description: summary,
          content: { [type]: { schema: { type: type === "application/json" ? "object" : "string" } } },
        },
      },
    });
  plain("/openapi.json", "openapi", "This document", "application/json");
  plain("/llms.txt", "llmsTxt", "A plain-text summary of the service for agents", "text/plain");
  plain("/healthz", "healthz", "Liveness", "application/json");
  plain(
    "/readyz",
    "readyz",
    "Readiness: NATS, PostgreSQL and at least one browser worker (503 otherwise)",
    "application/json",
  );
  plain("/metrics", "metrics", "Prometheus metrics", "text/plain");

  return {
    openapi: "3.1.0",
    info: {
      title: "Browserfleet",
      version: INTERFACE_VERSION,
      description:
        "Web scraping, crawling and live browser control for software agents. Prices are in US dollars; micros are millionths of a dollar (USDC atomic units).",
    },
    tags: [
      { name: "operations" },
      { name: "jobs" },
      { name: "account" },
      { name: "self-description" },
      { name: "mcp" },
      { name: "operations-meta" },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "An API key (bf_live_…) with a prepaid balance",
        },
        ...(setup.wallets
          ? {
              x402: {
                type: "apiKey",
                in: "header",
                name: "PAYMENT-SIGNATURE",
                description: "An x402 v2 payment for the exact quote a 402 answer gave (PAYMENT-REQUIRED)",
              },
            }
          : {}),
      },
    },
  };
}

/** /llms.txt: what an agent needs to start, in plain text, from the same route table and prices. */
export function buildLlmsTxt(setup: PaymentSetup): string {
  const lines = [
    "# Browserfleet",
    "",
    "> Web scraping, crawling and live browser control for software agents, over REST and MCP (POST /mcp, JSON-RPC, protocol 2025-06-18).",
    "",
    setup.wallets
      ? "Auth: `Authorization: Bearer <API key>` with a prepaid balance, or an x402 v2 wallet payment: a priced POST with neither answers 402 payment_required with the exact price (error.price), error.payWith and the x402 quote in the PAYMENT-REQUIRED header; repeat it with PAYMENT-SIGNATURE. Batch, crawl and the json format take a key only (their 402 has no PAYMENT-REQUIRED header). Keyless MCP callers get a small free allowance."
      : 'Auth: `Authorization: Bearer <API key>` with a prepaid balance; this deployment takes no wallet payments. A priced POST without a key answers 402 payment_required with the exact price (error.price) and error.payWith ["api_key"], no PAYMENT-REQUIRED header. Keyless MCP callers get a small free allowance.',
    "Every POST takes and returns JSON. Errors are `{ success: false, error: { code, message, details: [{ field, message }] } }`. GET on an operation path describes it (schema, price, example) for free.",
    "The full machine-readable contract: /openapi.json.",
    "",
    "## Operations",
    "",
  ];
  for (const r of OPERATION_ROUTES) {
    lines.push(`- POST ${r.path}: ${r.summary}`);
    lines.push(`  Price: ${PRICE_RULES[r.pricing]}${r.limits ? ` Limits: ${r.limits}` : ""}`);
    lines.push(`  Pay: ${paymentTerms(r, setup)}`);
    lines.push(`  Example body: ${JSON.stringify(r.example)}`);
  }
  lines.push(
    "- DELETE /web/v1/session/{id}: close a session (free).",
    "- GET|DELETE /web/v1/scrape/batch/{id}, /web/v1/crawl/{id}: job status with results (follow `next` as `cursor`), or cancel.",
    "- POST /web/v1/feedback: report a problem or a wish (free).",
    "- GET /web/v1/account, /account/usage, /account/transactions, /account/sessions: your balance and history.",
    "",
    "## MCP tools",
    "",
    "web_scrape, web_session_open, web_act, web_session_close, web_scrape_batch, web_batch_status, web_map, web_crawl, web_crawl_status, web_search_{provider} (one per configured provider), web_feedback.",
    "",
  );
  return lines.join("\n");
}
