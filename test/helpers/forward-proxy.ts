import { createServer, request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";

/** What passed through a recording proxy: each request's target and the credentials it came with. */
export interface Passed {
  method: string;
  /** CONNECT: host:port; otherwise the absolute URL. */
  target: string;
  /** The decoded Basic credentials, user:password, when sent. */
  credentials?: string;
}

export interface ForwardProxy {
  url: string;
  port: number;
  passed: Passed[];
  close(): Promise<void>;
}

/**
 * A small HTTP forward proxy (absolute-form requests and CONNECT tunnels), as an egress proxy pool or a
 * caller's own proxy is: it records what passes, and with `credentials` answers 407 to anything without them.
 */
export async function startForwardProxy(opts: { credentials?: string } = {}): Promise<ForwardProxy> {
  const passed: Passed[] = [];
  const sockets = new Set<Socket>();
  const credentialsOf = (h: string | undefined) =>
    h?.startsWith("Basic ") ? Buffer.from(h.slice(6), "base64").toString() : undefined;
  const refused = (credentials: string | undefined) =>
    opts.credentials !== undefined && credentials !== opts.credentials;

  const server = createServer((req, res) => {
    const credentials = credentialsOf(req.headers["proxy-authorization"]);
    passed.push({ method: req.method ?? "", target: req.url ?? "", ...(credentials ? { credentials } : {}) });
    if (refused(credentials)) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="pool"' }).end();
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const out = httpRequest(
      {
        host: url.hostname,
        port: Number(url.port || 80),
        method: req.method,
        path: url.pathname + url.search,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, { ...up.headers, "x-passed-proxy": "recorder" });
        up.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const credentials = credentialsOf(req.headers["proxy-authorization"]);
    passed.push({ method: "CONNECT", target: req.url ?? "", ...(credentials ? { credentials } : {}) });
    if (refused(credentials)) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="pool"\r\n\r\n',
      );
      return;
    }
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? "");
    if (!m) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const out = connect(Number(m[2]), m[1]!, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) out.write(head);
      out.pipe(client);
      client.pipe(out);
    });
    sockets.add(out);
    out.on("close", () => sockets.delete(out));
    out.on("error", () => client.destroy());
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    passed,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
