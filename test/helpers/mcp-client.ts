/** An MCP SDK client for the e2e stack's /mcp endpoint, and a tool call read as JSON. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the tool answered
export type Json = any;

/** Connects to `${apiUrl}/mcp`, sending `headers` with every request (a key, a forwarded address). */
export async function connectMcp(apiUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${apiUrl}/mcp`), {
    requestInit: { headers },
  });
  await client.connect(transport);
  return client;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; body: Json }> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as Array<{ type: string; text: string }>;
  return { isError: r.isError === true, body: JSON.parse(content[0]?.text ?? "null") };
}
