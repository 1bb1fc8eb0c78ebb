import { detailsFromZod } from "@browserfleet/contracts";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Request, Response, Router } from "express";
import { z } from "zod";
import { filesByUrl } from "../answers/artifacts.ts";
import { baseOf } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { OneRequestTransport, singleRequest } from "./one-request.ts";
import { isLoopbackBind, originGuard } from "./origin-guard.ts";
import { endJson, responseParts, type SerialisedContent } from "./response-json.ts";
import { answerToolCall, plainToolCall } from "./tool-call.ts";
import { notYet, type Tool, toolsFor } from "./tools.ts";

const text = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }],
  ...(isError ? { isError: true } : {}),
});

/** Base64 image formats of a scrape, act or session result: sent as MCP image content. */
const IMAGE_FORMATS = ["screenshot"] as const;
/** Formats that may come as a link (binaryAs url): sent as resource links. */
const FILE_FORMATS = ["screenshot", "pdf"] as const;
const mimeOfBase64 = (b64: string) => (b64.startsWith("/9j/") ? "image/jpeg" : "image/png");
const FILE_TYPES: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", pdf: "application/pdf" };

type Block =
  | { type: "image"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; mimeType: string; description: string };

const isLink = (v: unknown): v is string => typeof v === "string" && /^https?:\/\//.test(v);

function linkBlock(format: string, uri: string, expires?: string): Block {
  const ext = /\.([a-z0-9]+)(?:\?|$)/.exec(uri.split("?")[0] ?? "")?.[1] ?? "";
  return {
    type: "resource_link",
    uri,
    name: `${format}.${ext}`,
    mimeType: FILE_TYPES[ext] ?? "application/octet-stream",
    description: `The ${format}, served without a key${expires ? ` until ${expires}` : ""}`,
  };
}

/**
 * A tool's answer: the result as structuredContent and as JSON text, with each file moved out into a
 * content block of its own (the JSON says where it went): a file given as a link (binaryAs url) as a
 * resource link; a screenshot as image content, unless it is larger than MCP_INLINE_IMAGE_MAX_BYTES,
 * when it is stored and linked instead (inline again if it cannot be stored), so a model's context does
 * not fill with base64. The JSON is returned too, so that the response can carry it as the
 * structuredContent without a second stringify.
 */
async function resultOf(
  ctx: ApiContext,
  req: Request,
  value: unknown,
): Promise<{ result: CallToolResult; serialised?: SerialisedContent }> {
  if (!value || typeof value !== "object") return { result: text(value) };
  const blocks: Block[] = [];
  let structured = value as Record<string, unknown>;
  const data = structured.data as Record<string, unknown> | undefined;
  if (data && typeof data === "object") {
    const copy = { ...data };
    const metadata = { ...(structured.metadata as Record<string, unknown> | undefined) };
    const big = IMAGE_FORMATS.filter(
      (f) =>
        typeof copy[f] === "string" &&
        !isLink(copy[f]) &&
        (copy[f] as string).length * 0.75 > ctx.config.MCP_INLINE_IMAGE_MAX_BYTES,
    );
    if (big.length > 0) {
      // Only the screenshots too large to inline are stored (a base64 pdf stays as the caller asked).
      const moved = {
        data: Object.fromEntries(big.map((f) => [f, copy[f]])) as Record<string, unknown>,
        errors: {} as Record<string, { code: string; message: string }>,
        metadata,
      };
      await filesByUrl(ctx.artifacts, moved, baseOf(ctx, req)).catch(() => {});
      // One that could not be stored goes inline, as it would have.
      for (const f of big) if (typeof moved.data[f] === "string") copy[f] = moved.data[f];
    }
    for (const f of FILE_FORMATS) {
      const v = copy[f];
      if (isLink(v)) {
        blocks.push(linkBlock(f, v, metadata.filesExpireAt as string | undefined));
        continue;
      }
      if (!(IMAGE_FORMATS as readonly string[]).includes(f) || typeof v !== "string" || v.length === 0)
        continue;
      blocks.push({ type: "image", data: v, mimeType: mimeOfBase64(v) });
      copy[f] = `(image content ${blocks.length})`;
    }
    if (blocks.length > 0) structured = { ...structured, data: copy, metadata };
  }
  structured = await downloadsAsLinks(ctx, req, structured, blocks);
  const json = JSON.stringify(structured);
  return {
    result: { content: [{ type: "text", text: json }, ...blocks], structuredContent: structured },
    serialised: { value: structured, json },
  };
}

interface DownloadLike {
  name: string;
  url: string;
  type: string;
  data?: string;
  error?: { code: string; message: string };
}

/**
 * A session's downloaded files over MCP: stored and given as resource links (a model has no use for a
 * file's base64 in its context; the markdown of a document stays), each also named in the JSON by its
 * link. One that cannot be stored stays inline.
 */
async function downloadsAsLinks(
  ctx: ApiContext,
  req: Request,
  structured: Record<string, unknown>,
  blocks: Block[],
): Promise<Record<string, unknown>> {
  const downloads = structured.downloads as DownloadLike[] | undefined;
  if (!Array.isArray(downloads) || downloads.length === 0) return structured;
  const metadata = { ...(structured.metadata as Record<string, unknown> | undefined) };
  const moved = { data: {}, errors: {}, metadata, downloads: downloads.map((d) => ({ ...d })) };
  if (moved.downloads.some((d) => typeof d.data === "string" && !isLink(d.data)))
    await filesByUrl(ctx.artifacts, moved, baseOf(ctx, req)).catch(() => {});
  for (const d of moved.downloads)
    if (isLink(d.data))
      blocks.push({
        type: "resource_link",
        uri: d.data,
        name: d.name,
        mimeType: d.type,
        description: `Downloaded from ${d.url}; served without a key${metadata.filesExpireAt ? ` until ${metadata.filesExpireAt}` : ""}`,
      });
  return { ...structured, downloads: moved.downloads, metadata };
}

/** An error as a tool result the agent can read and act on: the code, the message, the field at fault. */
function errorResult(err: unknown): CallToolResult {
  if (err instanceof ApiError) {
    return text(
      {
        error: {
          code: err.code,
          message: err.message,
          ...(err.details ? { details: err.details } : {}),
          ...err.extra,
        },
      },
      true,
    );
  }
  return text({ error: { code: "internal", message: "internal error" } }, true);
}

/** tools/list: each tool's input JSON Schema, generated from its zod contract once per deployment. */
function toolList(tools: Tool[]) {
  return tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    annotations: { title: t.title, ...t.hints },
    inputSchema: z.toJSONSchema(t.input, { io: "input", unrepresentable: "any" }) as {
      type: "object";
      [k: string]: unknown;
    },
  }));
}
const catalogs = new WeakMap<ApiContext, { list: ReturnType<typeof toolList>; byName: Map<string, Tool> }>();
/** The tools of this deployment (search tools depend on its configured providers). */
function catalog(ctx: ApiContext) {
  let c = catalogs.get(ctx);
  if (!c) {
    const tools = toolsFor(ctx);
    c = { list: toolList(tools), byName: new Map(tools.map((t) => [t.name, t])) };
    catalogs.set(ctx, c);
  }
  return c;
}

/**
 * One JSON Schema validator per process. The SDK's Server uses it only to check what a client answers to
 * requests the server sends (elicitation), which a stateless server never sends; left out, every Server
 * would compile a fresh Ajv with all its formats: the largest single cost MCP added to a call served from
 * the cache.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * A tools/call for this request: the arguments validated by the tool's contract (zod), so that an agent
 * gets the same field-naming errors over MCP as over REST, as a tool result with isError; then the
 * tool, on its REST route's code path, for this request's caller (key, wallet or client address), who
 * pays for and sees only their own call.
 */
async function callTool(
  ctx: ApiContext,
  req: Request,
  params: CallToolRequest["params"],
  answered: Answered,
): Promise<CallToolResult> {
  const tool = catalog(ctx).byName.get(params.name);
  if (!tool) return errorResult(new ApiError("not_found", `no tool ${params.name}; see tools/list`));
  const parsed = tool.input.safeParse(params.arguments ?? {});
  if (!parsed.success) {
    const details = detailsFromZod(parsed.error);
    const first = details[0];
    return errorResult(
      new ApiError(
        "invalid_request",
        `invalid arguments: ${first?.field ? `${first.field}: ` : ""}${first?.message ?? ""}`,
        details,
      ),
    );
  }
  if (!tool.run) return errorResult(notYet(tool));
  try {
    const { result, serialised } = await resultOf(ctx, req, await tool.run(ctx, req, parsed.data as never));
    answered.serialised = serialised;
    return result;
  } catch (err) {
    return errorResult(err);
  }
}

/**
 * The low-level SDK server, so that validation is ours (callTool).
 *
 * One per request: an SDK server is connected to one transport at a time, and a stateless transport
 * serves exactly one request. What does not depend on the request (the tool list and its JSON Schemas,
 * the tools by name, the validator) is built once per process; the handlers below only close over this
 * request.
 */
function buildServer(ctx: ApiContext, req: Request, answered: Answered): Server {
  const server = new Server(
    { name: "browserfleet", version: "1.0.1" },
    { capabilities: { tools: {}, logging: {} }, jsonSchemaValidator },
  );
  const { list } = catalog(ctx);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: list }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(ctx, req, request.params, answered));
  return server;
}

/** What this request's tool handler answered, beyond the result the SDK validates and sends. */
interface Answered {
  serialised?: SerialisedContent;
}

/** A Host header that is a plain name or address with an optional port. */
const HOST = /^[\w.-]+(:\d{1,5})?$|^\[[\da-f:.]+\](:\d{1,5})?$/i;

/**
 * The request as the SDK's web-standard transport reads it: method, URL and headers. The body is not
 * carried: express already parsed it and it is handed over as parsedBody.
 */
function webRequest(req: Request): globalThis.Request {
  const headers: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.push([name, value]);
    else if (Array.isArray(value)) for (const v of value) headers.push([name, v]);
  }
  return new globalThis.Request(requestUrl(req), { method: req.method, headers });
}

/** The URL is informational here (the transport hands it to handlers, which do not read it). */
function requestUrl(req: Request): string {
  const host = req.headers.host && HOST.test(req.headers.host) ? req.headers.host : "localhost";
  return `http://${host}${req.originalUrl}`;
}

/** Writes the transport's answer: JSON (enableJsonResponse), 202 without a body, or an error. */
async function send(answer: globalThis.Response, res: Response): Promise<void> {
  res.status(answer.status);
  answer.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  res.end(answer.body ? Buffer.from(await answer.arrayBuffer()) : undefined);
}

/**
 * POST /mcp: stateless streamable HTTP (protocol 2025-06-18); nothing of a request outlives it.
 * A single JSON-RPC request that the SDK's web-standard transport would accept as is (every tools/call)
 * is answered without that transport's web Request and Response (and reading the answer back out of
 * its stream), which were most of what MCP added to a call served from the cache. A plain tools/call
 * (tool-call.ts) goes to the tool as the SDK's Server would send it there, without building a Server
 * for it; any other single request goes to a Server made for it, through a transport carrying just that
 * request and its response. Everything else (initialize, notifications, batches, anything the
 * transport answers with an HTTP error) goes through the SDK's web-standard transport and a Server made
 * for it, used directly rather than through its Node wrapper, with the parsed body handed over.
 */
export function mountMcp(router: Router, ctx: ApiContext): void {
  const guard = originGuard({
    loopbackOnly: isLoopbackBind(ctx.config.HOST),
    allowedOrigins: ctx.config.MCP_ALLOWED_ORIGINS.split(",")
      .map((o) => o.trim())
      .filter(Boolean),
  });
  router.post("/mcp", guard, async (req, res) => {
    const answered: Answered = {};
    const request = singleRequest(req);
    const call = request && plainToolCall(request);
    if (request && call) {
      const response = await answerToolCall(request.id, call, (c) => callTool(ctx, req, c.params, answered));
      // A caller that left before the answer gets none, as through a Server and its transport.
      if (!res.destroyed) endJson(res, responseParts(response, answered.serialised));
      return;
    }
    const server = buildServer(ctx, req, answered);
    if (request) {
      const one = new OneRequestTransport(server);
      // Closed only if the caller left before the answer: that aborts the handler's request.
      res.on("close", () => {
        if (!res.writableFinished) void one.close();
      });
      await server.connect(one);
      const response = await one.handle(request, {
        requestInfo: {
          headers: req.headers,
          get url() {
            return new URL(requestUrl(req));
          },
        },
      });
      endJson(res, responseParts(response, answered.serialised));
      return;
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // Our req.auth (the API key) is not the SDK's OAuth AuthInfo: the tools read the caller from req.
    await send(await transport.handleRequest(webRequest(req), { parsedBody: req.body }), res);
  });
  const stateless = () => {
    throw new ApiError(
      "method_not_allowed",
      "this MCP server is stateless: POST JSON-RPC messages to /mcp",
      undefined,
      {
        Allow: "POST",
      },
    );
  };
  router.get("/mcp", stateless);
  router.delete("/mcp", stateless);
}
