import type { ServerResponse } from "node:http";
import type { JSONRPCResponse } from "@modelcontextprotocol/sdk/types.js";

/** A tool result's structuredContent and its JSON, as written once into the result's text block. */
export interface SerialisedContent {
  value: Record<string, unknown>;
  json: string;
}

/**
 * The bytes of a JSON-RPC response, in parts to write one after the other. A tool result carries its
 * structuredContent twice, as that object and as its JSON in a text block (MCP's advice for clients
 * that read only text): where the SDK's validated structuredContent is still the object that JSON was
 * made from (same keys in the same order, same values), that JSON is written as is instead of
 * serialising the object a second time, and as a part of its own, so a large answer is not copied
 * once more into one string. Anything else is JSON.stringify of the response.
 */
export function responseParts(response: JSONRPCResponse, serialised?: SerialisedContent): string[] {
  if (serialised && "result" in response) {
    const { structuredContent, ...rest } = response.result;
    if (sameRecord(structuredContent, serialised.value)) {
      // structuredContent last, as a placeholder 0: the text ends with `:0}}`, where its JSON goes.
      const head = JSON.stringify({
        jsonrpc: response.jsonrpc,
        id: response.id,
        result: { ...rest, structuredContent: 0 },
      });
      return [head.slice(0, -3), serialised.json, "}}"];
    }
  }
  return [JSON.stringify(response)];
}

/** Ends a 200 response with a JSON body written in parts, its Content-Length what one string's would be. */
export function endJson(res: ServerResponse, parts: string[]): void {
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/json");
  if (parts.length === 1) {
    res.end(parts[0]);
    return;
  }
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  res.setHeader("Content-Length", length);
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
}

/** Two plain objects with the same own keys in the same order and identical values. */
function sameRecord(a: unknown, b: Record<string, unknown>): boolean {
  if (!a || typeof a !== "object" || Object.getPrototypeOf(a) !== Object.prototype) return false;
  if (Object.getPrototypeOf(b) !== Object.prototype) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++)
    if (ka[i] !== kb[i] || (a as Record<string, unknown>)[ka[i]!] !== b[kb[i]!]) return false;
  return true;
}
