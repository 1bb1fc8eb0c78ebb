import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  type JSONRPCRequest,
  type JSONRPCResponse,
  McpError,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
import { plainObject } from "./one-request.ts";

/**
 * A tools/call that the SDK's Server would hand straight to its tools/call handler, as the schema it
 * parses it with (CallToolRequestSchema) leaves it: params of just a name and plain arguments are
 * taken as they are (the schema's copy would be the same), any others through that schema; undefined
 * for anything else. A call asking for a task (`params.task`) or naming a related task in its `_meta`
 * is left to the Server: there the SDK checks task capabilities and routes task messages.
 */
export function plainToolCall(request: JSONRPCRequest): CallToolRequest | undefined {
  if (request.method !== "tools/call") return undefined;
  const plain = plainParams(request.params);
  if (plain) return { method: "tools/call", params: plain };
  const parsed = CallToolRequestSchema.safeParse(request);
  if (!parsed.success) return undefined;
  const { params } = parsed.data;
  if (params.task !== undefined || params._meta?.[RELATED_TASK_META_KEY] !== undefined) return undefined;
  return parsed.data;
}

const PARAMS_KEYS = new Set(["name", "arguments"]);

/**
 * The params of a tools/call as CallToolRequestSchema leaves them, when they are only a name and
 * arguments that are a plain object (which the schema copies as they are); undefined otherwise.
 */
function plainParams(params: JSONRPCRequest["params"]): CallToolRequest["params"] | undefined {
  if (!plainObject(params)) return undefined;
  for (const key of Object.keys(params)) if (!PARAMS_KEYS.has(key)) return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== "string") return undefined;
  if (args === undefined) return { name };
  return plainObject(args) ? { name, arguments: args } : undefined;
}

const RESULT_KEYS = new Set(["content", "structuredContent", "isError"]);

/**
 * A result that CallToolResultSchema takes and copies as it is: text content blocks of a type and a
 * text alone, a plain object as structuredContent, a boolean isError, nothing else. Any other (images,
 * whose base64 the schema checks, or anything unexpected) is checked by the schema.
 */
function plainResult(result: unknown): result is CallToolResult {
  if (!plainObject(result)) return false;
  for (const key of Object.keys(result)) if (!RESULT_KEYS.has(key)) return false;
  const { content, structuredContent, isError } = result;
  if (!Array.isArray(content)) return false;
  for (const block of content)
    if (
      !plainObject(block) ||
      block.type !== "text" ||
      typeof block.text !== "string" ||
      Object.keys(block).length !== 2
    )
      return false;
  if (structuredContent !== undefined && !plainObject(structuredContent)) return false;
  return isError === undefined || typeof isError === "boolean";
}

/**
 * Answers a plain tools/call (see plainToolCall) as the SDK's Server answers it (SDK 1.32: its
 * tools/call wrapper and Protocol's request handling): the handler's result, checked against
 * CallToolResultSchema and sent as that schema's output (a plain text-only result, such as every
 * result of ours without an image, is that output as it is), or the JSON-RPC error Protocol makes of what
 * the handler or that check throws. Nothing is built per process or kept between calls: the request,
 * its handler and its answer are this call's alone.
 */
export async function answerToolCall(
  id: JSONRPCRequest["id"],
  call: CallToolRequest,
  handler: (call: CallToolRequest) => Promise<CallToolResult>,
): Promise<JSONRPCResponse> {
  try {
    const result = await handler(call);
    if (plainResult(result)) return { result, jsonrpc: "2.0", id };
    const checked = CallToolResultSchema.safeParse(result);
    if (!checked.success)
      throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${checked.error.message}`);
    return { result: checked.data, jsonrpc: "2.0", id };
  } catch (err) {
    const error = err as { code?: unknown; message?: string; data?: unknown };
    return {
      jsonrpc: "2.0",
      id,
      error: {
        code: Number.isSafeInteger(error.code) ? (error.code as number) : ErrorCode.InternalError,
        message: error.message ?? "Internal error",
        ...(error.data !== undefined && { data: error.data }),
      },
    };
  }
}
