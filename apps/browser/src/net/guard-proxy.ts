import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import { type AllowList, checkUrl, SsrfError } from "@browserfleet/ssrf";

/**
 * A forward proxy that Chromium sends every connection through. It resolves each host, refuses
 * private, loopback, link-local and cluster-internal addresses (SSRF), and connects to the very
 * address it checked, so redirects, subresources, websockets and DNS rebinding all pass the same gate.
 */
export interface GuardProxy {
  url: string;
  /** The refusal for a URL's host:port, if the proxy refused it in the last minute. */
  refusalFor(url: string): SsrfError | undefined;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "upgrade",
]);
const REFUSAL_TTL_MS = 60_000;
/**
 * The request headers an http:// page load may bring: what a scrape's contract allows (50 headers of 8192
 * characters, 100 cookies of 4096 bytes, a user agent) plus Chromium's own. Node's default of 16 KB would
 * refuse a valid request here, before the site could say what it takes.
 */
const MAX_REQUEST_HEADER_BYTES = 2 * 1024 * 1024;

export async function startGuardProxy(allow: AllowList): Promise<GuardProxy> {
  const refusals = new Map<string, { err: SsrfError; at: number }>();
  const sockets = new Set<Socket>();

  /** The address to connect to: the checked one, or the name itself when the operator allowed that name. */
  async function target(url: string, key: string): Promise<string> {
    try {
      const { url: u, addresses } = await checkUrl(url, { allow });
      return addresses[0] ?? u.hostname.replace(/^\[|\]$/g, "");
    } catch (err) {
      if (err instanceof SsrfError) {
        refusals.set(key, { err, at: Date.now() });
        if (refusals.size > 1000) refusals.delete(refusals.keys().next().value!);
      }
      throw err;
    }
  }

  const server = createServer({ maxHeaderSize: MAX_REQUEST_HEADER_BYTES }, async (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end("absolute URL expected");
      return;
    }
    const port = Number(url.port || 80);
    let address: string;
    try {
      address = await target(url.href, `${url.hostname}:${port}`);
    } catch (err) {
      res
        .writeHead(403, { "content-type": "text/plain", "x-fleet-blocked": "ssrf" })
        .end((err as Error).message);
      return;
    }
    const headers: IncomingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v;
    const upstream = httpRequest(
      { host: address, port, method: req.method, path: url.pathname + url.search, headers, setHost: false },
      (up) => {
        const raw: string[] = [];
        for (let i = 0; i < up.rawHeaders.length; i += 2) {
          if (!HOP_BY_HOP.has(up.rawHeaders[i]!.toLowerCase()))
            raw.push(up.rawHeaders[i]!, up.rawHeaders[i + 1]!);
        }
        res.writeHead(up.statusCode ?? 502, up.statusMessage, raw);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });

  server.on("connect", async (req, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? "");
    if (!m) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const [, host, port] = m;
    const scheme = port === "80" ? "http" : "https";
    let address: string;
    try {
      address = await target(
        `${scheme}://${host!.includes(":") ? `[${host}]` : host}:${port}/`,
        `${host}:${port}`,
      );
    } catch {
      client.end(`HTTP/1.1 403 Forbidden\r\nx-fleet-blocked: ssrf\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const upstream = connect(Number(port), address, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => {
      upstream.destroy();
      client.destroy();
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    refusalFor(raw) {
      let u: URL;
      try {
        u = new URL(raw);
      } catch {
        return undefined;
      }
      const port = u.port || (u.protocol === "https:" ? "443" : "80");
      const hit =
        refusals.get(`${u.hostname.replace(/^\[|\]$/g, "")}:${port}`) ??
        refusals.get(`${u.hostname}:${port}`);
      return hit && Date.now() - hit.at < REFUSAL_TTL_MS ? hit.err : undefined;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
