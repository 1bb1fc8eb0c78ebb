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
  /** The refusal for a URL's host:port, if the proxy refused it (on any of its routes) in the last minute. */
  refusalFor(url: string): SsrfError | undefined;
  /**
   * A listener of its own that checks every connection the same way, then goes out through `upstream`
   * (an egress proxy) instead of connecting itself: a context made with it as its proxy server sends
   * everything through that egress proxy, behind the same SSRF gate. Closing it leaves this one open.
   */
  through(upstream: Upstream): Promise<GuardProxy>;
  close(): Promise<void>;
}

/** An HTTP forward proxy to go out through: where it listens, and its credentials (Basic). */
export interface Upstream {
  /** The address (or, for an operator's pool, the name) to connect to. */
  host: string;
  port: number;
  username?: string;
  password?: string;
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

  function refusalFor(raw: string): SsrfError | undefined {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return undefined;
    }
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    const hit =
      refusals.get(`${u.hostname.replace(/^\[|\]$/g, "")}:${port}`) ?? refusals.get(`${u.hostname}:${port}`);
    return hit && Date.now() - hit.at < REFUSAL_TTL_MS ? hit.err : undefined;
  }

  async function listen(upstream?: Upstream): Promise<GuardProxy> {
    const sockets = new Set<Socket>();
    const track = (sock: Socket) => {
      sockets.add(sock);
      sock.on("close", () => sockets.delete(sock));
    };
    const proxyAuth = upstream?.username
      ? `Basic ${Buffer.from(`${upstream.username}:${upstream.password ?? ""}`).toString("base64")}`
      : undefined;

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
      // Through an egress proxy: an absolute-form request for the checked address (the Host header keeps
      // the name), so the proxy cannot be steered to another address than the one checked.
      const hop = upstream
        ? {
            host: upstream.host,
            port: upstream.port,
            path: `http://${hostPort(address, port)}${url.pathname}${url.search}`,
            headers: proxyAuth ? { ...headers, "proxy-authorization": proxyAuth } : headers,
          }
        : { host: address, port, path: url.pathname + url.search, headers };
      const out = httpRequest({ ...hop, method: req.method, setHost: false }, (up) => {
        // The egress proxy refused our credentials: a gateway failure to the browser, never a 407 of its own
        // proxy (this guard), which it would try to answer.
        if (upstream && up.statusCode === 407) {
          up.resume();
          res
            .writeHead(502, { "content-type": "text/plain", "x-fleet-egress-status": "407" })
            .end("egress proxy refused its credentials");
          return;
        }
        const raw: string[] = [];
        for (let i = 0; i < up.rawHeaders.length; i += 2) {
          if (!HOP_BY_HOP.has(up.rawHeaders[i]!.toLowerCase()))
            raw.push(up.rawHeaders[i]!, up.rawHeaders[i + 1]!);
        }
        res.writeHead(up.statusCode ?? 502, up.statusMessage, raw);
        up.pipe(res);
      });
      out.on("error", () => res.destroy());
      req.pipe(out);
    });

    server.on("connect", async (req, client: Socket, head: Buffer) => {
      track(client);
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
      const joined = (out: Socket, rest: Buffer) => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (rest.length) client.write(rest);
        if (head.length) out.write(head);
        out.pipe(client);
        client.pipe(out);
      };
      const out = upstream
        ? connect(upstream.port, upstream.host, () =>
            out.write(
              `CONNECT ${hostPort(address, Number(port))} HTTP/1.1\r\nHost: ${hostPort(address, Number(port))}\r\n${
                proxyAuth ? `Proxy-Authorization: ${proxyAuth}\r\n` : ""
              }\r\n`,
            ),
          )
        : connect(Number(port), address, () => joined(out, Buffer.alloc(0)));
      track(out);
      out.on("error", () => {
        out.destroy();
        client.destroy();
      });
      if (upstream) {
        // The egress proxy's answer to CONNECT: 2xx joins the two; anything else is the browser's answer.
        let buffered = Buffer.alloc(0);
        const onData = (chunk: Buffer) => {
          buffered = Buffer.concat([buffered, chunk]);
          const end = buffered.indexOf("\r\n\r\n");
          if (end < 0) {
            if (buffered.length > 64 * 1024) out.destroy();
            return;
          }
          out.off("data", onData);
          const status = Number(
            /^HTTP\/1\.[01] (\d{3})/.exec(buffered.subarray(0, end).toString("latin1"))?.[1],
          );
          if (status >= 200 && status < 300) joined(out, buffered.subarray(end + 4));
          else {
            client.end(
              `HTTP/1.1 502 Bad Gateway\r\nx-fleet-egress-status: ${status || 0}\r\ncontent-length: 0\r\n\r\n`,
            );
            out.destroy();
          }
        };
        out.on("data", onData);
      }
    });
    server.on("connection", track);

    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}`,
      refusalFor,
      through: listen,
      close: () =>
        new Promise<void>((r) => {
          for (const sock of sockets) sock.destroy();
          server.close(() => r());
        }),
    };
  }

  return listen();
}

const hostPort = (address: string, port: number): string =>
  `${address.includes(":") ? `[${address}]` : address}:${port}`;
