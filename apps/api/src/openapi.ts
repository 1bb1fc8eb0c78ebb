import {
  ERROR_STATUS,
  errorBody,
  INTERFACE_VERSION,
  liveEvent,
  liveInput,
  type PaymentSetup,
  paymentTerms,
  WEBHOOK_EVENTS,
  webhookPayloadOf,
} from "@browserfleet/contracts";
import { z } from "zod";
import { LIVE_ROUTE } from "./live/links.ts";
import { ARTIFACTS_OPENAPI_PATH } from "./operations/artifacts.ts";
import { type AnyOperation, OPERATIONS, type PricedOperation } from "./operations/index.ts";
import { pathParams } from "./operations/operation.ts";
import { RECORDINGS_ROUTE } from "./recordings/links.ts";
import { CONSOLE_ROUTE } from "./web-ui/serve.ts";

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
  410: "Gone: the session (session_lost, session_closed), or the render a cursor reads on (cursor_expired)",
  413: "Body too large",
  429: "Rate limited or no browser capacity: Retry-After and RateLimit headers",
  500: "Internal error",
  502: "The page, the provider or the result failed (render_failed, upstream_failed, result_too_large)",
  503: "No browser worker or the work queue is unreachable: Retry-After",
  504: "The work did not finish in time",
};

const WEBHOOK_SUMMARY: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  "job.started": "A batch or crawl started: its first page went to a browser",
  "job.page":
    "A page of the job finished (completed or failed), in the order pages finish; its result, or past 256 KB a link to it",
  "job.completed": "The job ended with at least one page out",
  "job.failed": "The job ended with no page out",
  "job.cancelled": "The job was cancelled (DELETE on its status URL)",
  "session.closed":
    "A session opened with a webhook ended: closed by the caller, expired (idle or at its maximum lifetime) or lost",
};

/** The Standard Webhooks headers of every delivery. */
const WEBHOOK_HEADERS = [
  ["webhook-id", "The event's id, the same on every attempt: dedupe by it"],
  ["webhook-timestamp", "When this attempt was signed, seconds since the epoch: refuse old ones (replays)"],
  [
    "webhook-signature",
    "v1,<base64 HMAC-SHA256 of id.timestamp.body> under the account's secret (GET /web/v1/account/webhook-secret); two, space-separated, while a rotation overlaps",
  ],
].map(([name, description]) => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string" },
}));

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
const PAID = [{ bearer: [] }, { x402: [] }];
const KEYED = [{ bearer: [] }];

const describeOp = (op: PricedOperation, name: string): Operation => ({
  operationId: `describe${name}`,
  summary: `Self-description of POST ${op.path}: request schema, price, limits, auth, example`,
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

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** An operation's path parameters, described as the operation describes them. */
const pathParameters = (op: AnyOperation) =>
  pathParams(op.path).map((name) => ({
    name,
    in: "path",
    required: true,
    ...(op.params?.[name] ? { description: op.params[name] } : {}),
    schema: { type: "string" },
  }));

/** A GET's query parameters, from its query schema. */
function queryParameters(op: AnyOperation) {
  if (!op.query) return [];
  const { properties = {}, required = [] } = schemaOf(op.query, "input") as {
    properties?: Record<string, Schema & { description?: string }>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, { description, ...schema }]) => ({
    name,
    in: "query",
    ...(required.includes(name) ? { required: true } : {}),
    ...(description ? { description } : {}),
    schema,
  }));
}

type Add = (path: string, method: string, op: Operation) => void;

/** A priced POST, and the GET that describes it. */
function pricedOperation(
  op: PricedOperation,
  setup: PaymentSetup,
  schemas: Record<string, Schema>,
  add: Add,
) {
  const route = op.priced;
  const name = pascal(op.name);
  if (op.request) schemas[`${name}Request`] = schemaOf(op.request, "input");
  if (op.response) schemas[`${name}Response`] = schemaOf(op.response, "output");
  const params = pathParameters(op);
  const described = describeOp(op, name);
  add(op.path, "get", {
    ...described,
    ...(params.length ? { parameters: params } : {}),
    // Reads are rate limited; a path parameter may name nothing (an unknown search provider).
    responses: {
      ...(described.responses as Schema),
      ...errors(inputErrors([429], false, pathParams(op.path))),
      ...(params.length ? HEADERS_TOO_LARGE : {}),
    },
  });
  const wallets = setup.wallets && route.payment === "any";
  add(op.path, "post", {
    operationId: op.name,
    summary: op.summary,
    description: `Price: ${route.price.words}\n\nAuth: ${paymentTerms(route, setup)}${route.limits ? `\n\nLimits: ${route.limits}` : ""}`,
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
        ...(op.response ? { content: json(ref(`${name}Response`)) } : {}),
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
      ...errors(inputErrors([...PRICED_ERRORS, ...(route.errors ?? [])], true, pathParams(op.path)), wallets),
      ...(params.length ? HEADERS_TOO_LARGE : {}),
    },
  });
}

/** A free operation: job status and cancel, session close, feedback, the search providers. */
function freeOperation(op: AnyOperation, setup: PaymentSetup, schemas: Record<string, Schema>, add: Add) {
  const free = op.free;
  if (!free) throw new Error(`operation ${op.name} is neither priced nor free`);
  const name = pascal(op.name);
  const body = op.method === "POST" ? op.request : undefined;
  if (body) schemas[`${name}Request`] = schemaOf(body, "input");
  const responseName = free.responseName ?? `${name}Response`;
  if (op.response) schemas[responseName] = schemaOf(op.response, "output");
  const parameters = [...pathParameters(op), ...queryParameters(op)];
  const security = free.auth === "key" || (free.auth === "any" && !setup.wallets) ? KEYED : PAID;
  add(op.path, op.method.toLowerCase(), {
    operationId: op.name,
    summary: op.summary,
    tags: free.tags,
    ...(free.auth ? { security } : {}),
    ...(parameters.length ? { parameters } : {}),
    // A body whose every field is optional may be left out (a POST without one reads as {}).
    ...(body
      ? { requestBody: { required: !body.safeParse({}).success, content: json(ref(`${name}Request`)) } }
      : {}),
    responses: {
      "200": { description: free.ok, ...(op.response ? { content: json(ref(responseName)) } : {}) },
      ...errors(inputErrors(free.errors, parameters.length > 0 || body !== undefined, pathParams(op.path))),
      ...(parameters.length ? HEADERS_TOO_LARGE : {}),
    },
  });
}

/**
 * The statuses an operation answers beyond its own list: 400 whenever it reads a body or parameters (they are
 * validated, unknown query fields included; a path that does not decode as UTF-8 is one too), 404 whenever a
 * path parameter may name nothing.
 */
function inputErrors(own: number[], readsInput: boolean, params: string[]): number[] {
  const all = new Set(own);
  if (readsInput || params.length > 0) all.add(400);
  if (params.length > 0) all.add(404);
  return [...all].sort((a, b) => a - b);
}

/** Node's own answer when a long parameter makes the request line and headers pass its 16 KB: no body. */
const HEADERS_TOO_LARGE = {
  "431": {
    description: "The request line and headers are over 16 KB together (a parameter too long): no body",
  },
};

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

  for (const op of OPERATIONS) {
    if (op.priced) pricedOperation(op as PricedOperation, setup, schemas, add);
    else freeOperation(op, setup, schemas, add);
  }

  add("/mcp", "post", {
    operationId: "mcp",
    summary:
      "MCP over JSON-RPC 2.0, stateless streamable HTTP, protocol 2025-06-18: the same operations as tools (tools/list shows them)",
    tags: ["mcp"],
    // Keyless callers are served too: listing tools is free, and tools spend the keyless allowance.
    security: [...(setup.wallets ? PAID : KEYED), {}],
    requestBody: {
      required: true,
      content: json({
        type: "object",
        description: "A JSON-RPC request (with an id) or notification (without)",
        required: ["jsonrpc", "method"],
        additionalProperties: false,
        properties: {
          jsonrpc: { const: "2.0" },
          method: { type: "string" },
          id: { type: ["string", "integer"] },
          params: { type: "object" },
        },
      }),
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
      "406": {
        description: "Accept must list both application/json and text/event-stream (JSON-RPC error)",
        content: json({ type: "object" }),
      },
      "415": {
        description: "Content-Type must be application/json (JSON-RPC error)",
        content: json({ type: "object" }),
      },
      ...errors([401, 413, 429]),
    },
  });
  for (const method of ["get", "delete"])
    add("/mcp", method, {
      operationId: `mcp${method === "get" ? "Get" : "Delete"}`,
      summary: "Not used: the endpoint is stateless",
      tags: ["mcp"],
      responses: errors([405]),
    });

  const plain = (path: string, id: string, summary: string, type: string, more: Schema = {}) =>
    add(path, "get", {
      operationId: id,
      summary,
      tags: ["operations-meta"],
      responses: {
        "200": {
          description: summary,
          content: { [type]: { schema: { type: type === "application/json" ? "object" : "string" } } },
        },
        ...more,
      },
    });
  add(ARTIFACTS_OPENAPI_PATH, "get", {
    operationId: "artifact",
    summary:
      "A screenshot, PDF or document given out with binaryAs url: no key, until the link expires (a changed, expired or unknown link is the same 404)",
    tags: ["artifacts"],
    parameters: [
      { name: "hour", in: "path", required: true, schema: { type: "string", pattern: "^[0-9]{10}$" } },
      {
        name: "file",
        in: "path",
        required: true,
        schema: { type: "string", pattern: "^[A-Za-z0-9_-]{22,64}\\.[a-z0-9]{2,5}$" },
      },
      {
        name: "e",
        in: "query",
        required: true,
        schema: { type: "string" },
        description: "Expiry, seconds since the epoch",
      },
      { name: "s", in: "query", required: true, schema: { type: "string" }, description: "Signature" },
    ],
    responses: {
      "200": {
        description: "The file, with its Content-Type",
        content: Object.fromEntries(
          ["image/png", "image/jpeg", "application/pdf", "application/octet-stream"].map((t) => [
            t,
            { schema: { type: "string", contentMediaType: t } },
          ]),
        ),
      },
      // 400: a path that is not percent-encoded UTF-8; 431: a parameter too long (every route's).
      ...errors([400, 404, 429, 503]),
      ...HEADERS_TOO_LARGE,
    },
  });
  const token = {
    name: "token",
    in: "path",
    required: true,
    schema: { type: "string" },
    description: "The live view's token, from a session's liveViewUrl (a capability: no key)",
  };
  const html = { "text/html": { schema: { type: "string" } } };
  add(`${LIVE_ROUTE}/{token}`, "get", {
    operationId: "liveView",
    summary:
      "A session's live view, for a person: its page as it changes, the URL, title and actions (a changed or expired link 404, an ended session 410, both as a page)",
    tags: ["live-view"],
    parameters: [token],
    responses: {
      "200": { description: "The viewer page", content: html },
      "404": { description: "Not a link this api gave out, or expired", content: html },
      "410": { description: "The session ended", content: html },
      ...errors([400, 429]),
      ...HEADERS_TOO_LARGE,
    },
  });
  add(`${LIVE_ROUTE}/{token}/events`, "get", {
    operationId: "liveViewEvents",
    summary:
      "The live view's server-sent events: frame (a JPEG, base64, and the viewport it shows), page (url, title, tab), action (action, target, detail, ok), ended (reason)",
    tags: ["live-view"],
    parameters: [token],
    responses: {
      "200": {
        description:
          "An event stream until the session ends; each event's name is its data's kind (comment lines keep the connection warm)",
        content: {
          "text/event-stream": {
            schema: {
              type: "object",
              required: ["event", "data"],
              properties: {
                event: { enum: ["frame", "page", "action", "ended"] },
                data: {
                  type: "string",
                  contentMediaType: "application/json",
                  contentSchema: ref("LiveEvent"),
                },
              },
            },
          },
        },
      },
      ...errors([400, 404, 410, 429]),
      ...HEADERS_TOO_LARGE,
    },
  });
  schemas.LiveInput = schemaOf(liveInput, "input");
  schemas.LiveEvent = schemaOf(liveEvent, "output");
  add(`${LIVE_ROUTE}/{token}/input`, "post", {
    operationId: "liveViewInput",
    summary:
      "An interactive live view's click, text, key or scroll for the session's page (viewport CSS pixels; at most 30 a second)",
    tags: ["live-view"],
    parameters: [token],
    requestBody: { required: true, content: json(ref("LiveInput")) },
    responses: {
      "200": {
        description: "The page took it",
        content: json({ type: "object", properties: { success: { const: true } } }),
      },
      "403": { description: "A view-only live view (live_view_only)", content: json(ref("ErrorBody")) },
      ...errors([400, 404, 410, 413, 429, 503, 504]),
      ...HEADERS_TOO_LARGE,
    },
  });
  const recordingToken = {
    ...token,
    description: "The recording's token, from a session's recordingUrl (a capability: no key)",
  };
  add(`${RECORDINGS_ROUTE}/{token}`, "get", {
    operationId: "recording",
    summary:
      "A session's recording, for a person: its replay (rrweb), with the agent's actions and the pages it went to as steps to jump to (a changed or expired link 404, as a page)",
    tags: ["live-view"],
    parameters: [recordingToken],
    responses: {
      "200": { description: "The replay page", content: html },
      "404": { description: "Not a link this api gave out, or the recording expired", content: html },
      ...errors([400, 429]),
      ...HEADERS_TOO_LARGE,
    },
  });
  add(`${RECORDINGS_ROUTE}/{token}/events`, "get", {
    operationId: "recordingEvents",
    summary:
      "The recording so far: rrweb events, one JSON object a line, in order; the agent's actions are rrweb custom events tagged action (payload: action, target, detail, ok) and the end one tagged ended",
    tags: ["live-view"],
    parameters: [recordingToken],
    responses: {
      "200": {
        description: "Newline-delimited rrweb events (gzip when the client accepts it)",
        content: {
          "application/x-ndjson": {
            schema: { type: "string", description: "Lines of rrweb eventWithTime JSON" },
          },
        },
      },
      ...errors([400, 404, 429]),
      ...HEADERS_TOO_LARGE,
    },
  });
  add(CONSOLE_ROUTE, "get", {
    operationId: "console",
    summary:
      "The account console, for a person: balance, usage, transactions, sessions with their live view, jobs, prices; signs in with an API key kept in the tab, and reads only the public /web/v1 routes",
    tags: ["live-view"],
    responses: { "200": { description: "The console page", content: html }, ...errors([429]) },
  });
  add("/ui/{file}", "get", {
    operationId: "webUiFile",
    summary: "A script or stylesheet of the pages for people (live view, console); immutable under ?v=<hash>",
    tags: ["live-view"],
    parameters: [{ name: "file", in: "path", required: true, schema: { type: "string" } }],
    responses: {
      "200": {
        description: "The file",
        content: {
          "text/javascript": { schema: { type: "string" } },
          "text/css": { schema: { type: "string" } },
        },
      },
      ...errors([400, 404, 429]),
      ...HEADERS_TOO_LARGE,
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
    {
      "503": {
        description: "Not ready: the same body with the parts that are down",
        content: json({ type: "object" }),
      },
    },
  );
  plain("/metrics", "metrics", "Prometheus metrics", "text/plain");

  // What a job's webhook receives: one POST per event, signed the Standard Webhooks way.
  const webhooks = Object.fromEntries(
    WEBHOOK_EVENTS.map((type) => {
      const name = `WebhookEvent${type
        .split(".")
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join("")}`;
      schemas[name] = schemaOf(webhookPayloadOf(type), "output");
      return [
        type,
        {
          post: {
            operationId: name[0]!.toLowerCase() + name.slice(1),
            summary: WEBHOOK_SUMMARY[type],
            tags: ["webhooks"],
            parameters: WEBHOOK_HEADERS,
            requestBody: { required: true, content: json(ref(name)) },
            responses: {
              "2XX": { description: "Received: the event is not sent again" },
              "410": { description: "Gone: no more events are sent to this webhook" },
              default: {
                description:
                  "Not received: 408, 425, 429 (Retry-After is honoured) and 5xx, or no answer within WEBHOOK_TIMEOUT_MS, are retried with backoff for WEBHOOK_RETRY_FOR_MS; other statuses are not",
              },
            },
          },
        },
      ];
    }),
  );

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
      { name: "webhooks" },
      { name: "operations-meta" },
      { name: "artifacts" },
      {
        name: "live-view",
        description:
          "Pages for people: a session's live view and its recording's replay (capability links, no key) and the account console",
      },
    ],
    paths,
    webhooks,
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

/** An operation's MCP tools as llms.txt names them: web_search_{provider} stands for one per provider. */
function toolNames(op: AnyOperation): string[] {
  if (!op.tool) return [];
  if (!("each" in op.tool)) return [op.tool.name];
  const [param] = pathParams(op.path);
  return [`${op.tool.name} (one per configured ${param})`];
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
  for (const op of OPERATIONS) {
    const r = op.priced;
    if (!r) continue;
    lines.push(`- POST ${op.path}: ${op.summary}`);
    lines.push(`  Price: ${r.price.words}${r.limits ? ` Limits: ${r.limits}` : ""}`);
    lines.push(`  Pay: ${paymentTerms(r, setup)}`);
    lines.push(`  Free without a key (MCP): ${r.allowance.words}`);
    lines.push(`  Example body: ${JSON.stringify(r.example)}`);
  }
  lines.push(
    ...OPERATIONS.filter((op) => !op.priced).map((op) => `- ${op.method} ${op.path}: ${op.summary}.`),
    "",
    "## MCP tools",
    "",
    `${OPERATIONS.flatMap(toolNames).join(", ")}.`,
    "",
  );
  return lines.join("\n");
}
