import { z } from "zod";
import { LINE, text } from "./text.ts";

/** A pool's name as requests give it (`proxy: "pool:<name>"`) and as the operator declares it. */
export const POOL_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const POOL_CHOICE = new RegExp(`^pool:${POOL_NAME.source.slice(1)}`);

const PORT = "(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})";
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
/**
 * A caller's own proxy server: http://host:port and nothing more, as a pattern the published schema carries
 * whole (its credentials go in their own fields). A host the pattern takes but no URL can hold (999.1.1.1)
 * is the SSRF check's 400 invalid_url.
 */
export const PROXY_SERVER = new RegExp(
  `^http://(?:\\[[0-9A-Fa-f:.]{2,45}\\]|${LABEL}(?:\\.${LABEL})*)(?::${PORT})?/?$`,
);
const proxyServer = z
  .string()
  .max(300)
  .regex(
    PROXY_SERVER,
    "an http:// forward proxy, http://host:port: no path, query or credentials (give username and password)",
  );

export const ownProxy = z.strictObject({
  server: proxyServer.describe(
    "The caller's HTTP forward proxy (CONNECT for https), http://host:port; never a private, loopback or cluster address",
  ),
  username: text(LINE).min(1).max(256).optional(),
  password: text(LINE).max(256).optional(),
});
export type OwnProxy = z.infer<typeof ownProxy>;

export const proxy = z
  .union([z.enum(["auto", "none"]), z.string().regex(POOL_CHOICE), ownProxy], {
    error: 'proxy is "auto", "none", "pool:<name>" or { server, username?, password? }',
  })
  .describe(
    "How the browser reaches the web. auto (the default): through the deployment's egress pool of location.country when it has one, else its default pool, else directly; none: directly, from this service's own address; \"pool:<name>\": that pool (the proxies route, MCP tool web_proxies, lists them with what each adds to the price); { server, username, password }: the caller's own HTTP forward proxy, where the operator allows it (CALLER_PROXIES), never one in private address space. Every target still passes the SSRF guard, whichever way it goes out.",
  );
export type ProxyChoice = z.infer<typeof proxy>;

/** GET proxies: the deployment's egress pools, without their addresses or credentials. */
export const proxiesView = z.object({
  pools: z.array(
    z.object({
      name: z.string().describe('Give it as proxy: "pool:<name>"'),
      countries: z
        .array(z.string())
        .describe("proxy auto takes this pool for a location.country among these"),
      default: z.boolean().describe("proxy auto takes this pool when no pool is of the request's country"),
      price: z
        .object({ usd: z.string(), micros: z.int() })
        .describe("What each page (or session) through it adds"),
    }),
  ),
  callerProxies: z
    .boolean()
    .describe("Whether a caller may bring its own proxy: proxy { server, username, password }"),
});
export type ProxiesView = z.infer<typeof proxiesView>;
