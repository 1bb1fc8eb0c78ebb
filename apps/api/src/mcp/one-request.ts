import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  JSONRPCRequestSchema,
  type JSONRPCResponse,
  type MessageExtraInfo,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { Request } from "express";

/**
 * The hot case of a stateless streamable-HTTP POST: one JSON-RPC request (tools/call, tools/list, ping…)
 * that the SDK's web-standard transport would accept as is. Anything else (initialize, notifications,
 * responses, batches, a wrong Accept, Content-Type or MCP-Protocol-Version, a malformed message) is
 * left to that transport, so its status codes and JSON-RPC errors stay the SDK's own.
 *
 * The checks are the transport's (SDK 1.32, handlePostRequest), in its order, read from Node's headers.
 */
export function singleRequest(req: Request): JSONRPCRequest | undefined {
  const body: unknown = req.body;
  if (!body || typeof body !== "object" || Array.isArray(body)) return undefined;
  if ((body as { method?: unknown }).method === "initialize") return undefined;
  const accept = req.headers.accept;
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  // Node keeps the first of repeated Content-Type headers where a web Request joins them (and the
  // transport then refuses the joined value): repeated ones go to the transport.
  if (!isJsonContentType(req.headers["content-type"]) || repeated(req.rawHeaders, "content-type"))
    return undefined;
  const version = req.headers["mcp-protocol-version"];
  if (
    version !== undefined &&
    (typeof version !== "string" || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
  )
    return undefined;
  const record = body as Record<string, unknown>;
  if (plainRequest(record)) return record;
  const parsed = JSONRPCRequestSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * Whether a JSON body is a JSON-RPC request that JSONRPCRequestSchema takes as it is: a string or safe
 * integer id, a method, and params, if any, an object without `_meta`; nothing else. It is then used
 * as it is, as the schema's copy of it would be the same. Anything else is for the schema to judge.
 */
export function plainRequest(body: Record<string, unknown>): body is JSONRPCRequest {
  for (const key of Object.keys(body)) if (!REQUEST_KEYS.has(key)) return false;
  if (body.jsonrpc !== "2.0" || typeof body.method !== "string") return false;
  if (typeof body.id !== "string" && !Number.isSafeInteger(body.id)) return false;
  return body.params === undefined || (plainObject(body.params) && !Object.hasOwn(body.params, "_meta"));
}

/**
 * An object as JSON.parse makes it, whose copy by a zod object or record schema has the same keys: a
 * `__proto__` key would not be copied as a key.
 */
export function plainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, "__proto__")
  );
}

/** Whether a header comes more than once (rawHeaders alternates names and values). */
function repeated(rawHeaders: string[], name: string): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.length === name.length && rawHeaders[i]!.toLowerCase() === name && ++seen > 1)
      return true;
  return false;
}

/** The SDK Protocol's handling of one incoming request (private in its types; SDK 1.32). */
type RequestDispatch = (request: JSONRPCRequest, extra?: MessageExtraInfo) => void;

/**
 * An SDK transport carrying one JSON-RPC request in and its response out, for a Server made for this
 * request alone: what the web-standard transport does for such a request with enableJsonResponse,
 * without building a web Request and Response around it. As there, notifications and requests the
 * server sends while handling it are dropped (a JSON answer has no stream to carry them).
 */
export class OneRequestTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private answer?: (response: JSONRPCResponse) => void;
  private closed = false;

  /**
   * Given the server this transport is connected to, a request goes straight to the server's request
   * handling. Its message listener would first try the message as a result and as an error response:
   * two failing zod parses, each building an error with a stack trace (10-20 µs apiece at the depth
   * of an express handler, the largest part of what the SDK added to a call). A message singleRequest
   * took has passed the SDK's strict JSONRPCRequestSchema, so it has neither `result` nor `error` and
   * those checks would send it to that same request handling.
   */
  constructor(private readonly server?: object) {}

  async start(): Promise<void> {}

  /** Hands the request to the server; resolves with its response (never, if closed before it). */
  handle(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<JSONRPCResponse> {
    const response = new Promise<JSONRPCResponse>((resolve) => {
      this.answer = resolve;
    });
    const dispatch = (this.server as { _onrequest?: RequestDispatch } | undefined)?._onrequest;
    if (typeof dispatch === "function") dispatch.call(this.server, request, extra);
    else this.onmessage?.(request, extra);
    return response;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || !("id" in message) || !("result" in message || "error" in message)) return;
    this.answer?.(message);
    this.answer = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.answer = undefined;
    this.onclose?.();
  }
}
