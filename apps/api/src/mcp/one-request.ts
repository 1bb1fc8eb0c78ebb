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
  const parsed = JSONRPCRequestSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/** Whether a header comes more than once (rawHeaders alternates names and values). */
function repeated(rawHeaders: string[], name: string): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.length === name.length && rawHeaders[i]!.toLowerCase() === name && ++seen > 1)
      return true;
  return false;
}

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

  async start(): Promise<void> {}

  /** Hands the request to the server; resolves with its response (never, if closed before it). */
  handle(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<JSONRPCResponse> {
    const response = new Promise<JSONRPCResponse>((resolve) => {
      this.answer = resolve;
    });
    this.onmessage?.(request, extra);
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
