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

/**
 * A tools/call that the SDK's Server would hand straight to its tools/call handler, parsed by the same
 * schema it parses it with (CallToolRequestSchema); undefined for anything else. A call asking for a
 * task (`params.task`) or naming a related task in its `_meta` is left to the Server: there the SDK
 * checks task capabilities and routes task messages, which a stateless server answers as it decides.
 */
export function plainToolCall(request: JSONRPCRequest): CallToolRequest | undefined {
  if (request.method !== "tools/call") return undefined;
  const parsed = CallToolRequestSchema.safeParse(request);
  if (!parsed.success) return undefined;
  const { params } = parsed.data;
  if (params.task !== undefined || params._meta?.[RELATED_TASK_META_KEY] !== undefined) return undefined;
  return parsed.data;
}

/**
 * Answers a plain tools/call (see plainToolCall) as the SDK's Server answers it (SDK 1.32: its
 * tools/call wrapper and Protocol's request handling): the handler's result, checked against
 * CallToolResultSchema and sent as that schema's output, or the JSON-RPC error Protocol makes of what
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
