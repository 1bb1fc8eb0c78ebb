/**
 * Fixture website for end-to-end tests of the scraping service.
 *
 *   import { startFixtureSite } from "../fixture-site/server.ts";
 *   const site = await startFixtureSite();   // http://127.0.0.1:<free port>
 *   ...
 *   site.hits("/img/pixel.png");
 *   await site.close();
 *
 * Standalone: `npx tsx test/fixture-site/server.ts [--port N] [--host H]`
 * (or PORT / HOST env vars) prints the URL and serves until killed.
 */
import { realpathSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { busyRoutes } from "./busy.ts";
import { crawlSiteRoutes } from "./crawl-site.ts";
import { documentsRoutes } from "./documents.ts";
import { filesRoutes } from "./files.ts";
import { loginRoutes } from "./login.ts";
import {
  APP_JS,
  APP_PAGE_HTML,
  ARTICLE_HTML,
  AUTH_OK_HTML,
  AUTH_REQUIRED_HTML,
  BLOCKED_RESOURCES_HTML,
  buildLargeHtml,
  buildManualHtml,
  cookiesHtml,
  ELEMENTS_HTML,
  FORM_HTML,
  headersHtml,
  INDEX_HTML,
  JS_CONTENT_HTML,
  LATIN1_HTML,
  LINKS_HTML,
  NOT_FOUND_HTML,
  PAGE2_HTML,
  PIXEL_PNG,
  robotsTxt,
  SET_COOKIE_HTML,
  STYLE_CSS,
  sitemapXml,
  slowHtml,
  slowJson,
  statusHtml,
  welcomeHtml,
} from "./pages.ts";
import { placesRoutes } from "./places.ts";
import type { ExtraRoutes, Reply } from "./reply.ts";
import { sitemapsRoutes } from "./sitemaps.ts";
import { tabsDialogsRoutes } from "./tabs-dialogs.ts";

export interface FixtureSiteOptions {
  /** Port to listen on; 0 (default) picks a free port. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
}

export interface FixtureSite {
  /** Origin without trailing slash, e.g. http://127.0.0.1:54321 */
  url: string;
  port: number;
  /** Stops listening, cancels pending /slow timers, destroys open sockets. */
  close(): Promise<void>;
  /** Number of requests received for a pathname (query/fragment ignored). */
  hits(path: string): number;
  /**
   * A page under /edited/ as a site's editors leave it: `body` is served (an HTML page) until set again;
   * undefined takes it down (404), as a deleted article is.
   */
  edit(path: `/edited/${string}`, body: string | undefined): void;
}

const HTML = "text/html; charset=utf-8";
const DEFAULT_SLOW_MS = 3000;
const MAX_SLOW_MS = 120_000;
const AUTH_USER = "alice";
const AUTH_PASSWORD = "secret";

/** Strip query string and fragment; keep the raw (undecoded) pathname. */
function pathnameOf(target: string): string {
  let path = target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    // absolute-form request target (proxy style)
    try {
      path = new URL(path).pathname;
    } catch {
      // fall through with the raw value
    }
  }
  const cut = path.search(/[?#]/);
  if (cut >= 0) path = path.slice(0, cut);
  return path === "" ? "/" : path;
}

function queryOf(target: string): URLSearchParams {
  const q = target.indexOf("?");
  if (q < 0) return new URLSearchParams();
  const hash = target.indexOf("#", q);
  return new URLSearchParams(target.slice(q + 1, hash < 0 ? undefined : hash));
}

const EXTRA_ROUTES: ExtraRoutes[] = [
  documentsRoutes,
  sitemapsRoutes,
  crawlSiteRoutes,
  tabsDialogsRoutes,
  busyRoutes,
  loginRoutes,
  placesRoutes,
  filesRoutes,
];

const html = (body: string, status = 200, headers?: Record<string, string>): Reply => ({
  status,
  type: HTML,
  body,
  headers,
});

const redirectTo = (status: number, location: string): Reply =>
  html(
    "<!DOCTYPE html><html><head><title>Redirect</title></head><body><p>Redirecting.</p></body></html>",
    status,
    { Location: location },
  );

function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = {
    // Keep browsers from caching, so hits() reflects every page load.
    "Cache-Control": "no-store",
    ...reply.headers,
  };
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const buf = typeof reply.body === "string" ? Buffer.from(reply.body, "utf8") : reply.body;
  if (reply.type) headers["Content-Type"] = reply.type;
  headers["Content-Length"] = String(buf.length);
  res.writeHead(reply.status, headers);
  res.end(buf);
}

function originOf(req: IncomingMessage, fallback: string): string {
  const host = req.headers.host;
  return host ? `http://${host}` : fallback;
}

function isAuthorized(req: IncomingMessage): boolean {
  const header = req.headers.authorization;
  if (!header) return false;
  const match = /^Basic\s+(.+)$/i.exec(header.trim());
  if (!match?.[1]) return false;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return false;
  return decoded.slice(0, colon) === AUTH_USER && decoded.slice(colon + 1) === AUTH_PASSWORD;
}

export async function startFixtureSite(opts: FixtureSiteOptions = {}): Promise<FixtureSite> {
  const host = opts.host ?? "127.0.0.1";
  const hitCounts = new Map<string, number>();
  const edited = new Map<string, string>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const largeHtml = buildLargeHtml();
  const manualHtml = buildManualHtml();
  const latin1Body = Buffer.from(LATIN1_HTML, "latin1");
  let baseUrl = "";

  /** Returns the reply, or null when the route answers asynchronously (/slow, /api/slow-json). */
  const route = (req: IncomingMessage, res: ServerResponse): Reply | null => {
    const target = req.url ?? "/";
    const path = pathnameOf(target);
    hitCounts.set(path, (hitCounts.get(path) ?? 0) + 1);
    const query = queryOf(target);

    switch (path) {
      case "/":
        return html(INDEX_HTML);
      case "/article":
        return html(ARTICLE_HTML);
      case "/page2":
        return html(PAGE2_HTML);
      case "/img/pixel.png":
        return { status: 200, type: "image/png", body: PIXEL_PNG };
      case "/js-content":
        return html(JS_CONTENT_HTML);
      case "/slow": {
        const raw = Number(query.get("ms") ?? DEFAULT_SLOW_MS);
        const ms = Number.isFinite(raw)
          ? Math.min(Math.max(0, Math.floor(raw)), MAX_SLOW_MS)
          : DEFAULT_SLOW_MS;
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed && !res.writableEnded) send(res, html(slowHtml(ms)));
        }, ms);
        timers.add(timer);
        // Response finished, client went away, or socket destroyed by close(): drop the timer.
        res.on("close", () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return null;
      }
      case "/form":
        return html(FORM_HTML);
      case "/app":
        return html(APP_PAGE_HTML);
      case "/api/slow-json": {
        const raw = Number(query.get("ms") ?? 300);
        const ms = Number.isFinite(raw) ? Math.min(Math.max(0, Math.floor(raw)), MAX_SLOW_MS) : 300;
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed && !res.writableEnded)
            send(res, { status: 200, type: "application/json; charset=utf-8", body: slowJson(ms) });
        }, ms);
        timers.add(timer);
        res.on("close", () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return null;
      }
      case "/welcome":
        return html(welcomeHtml(query.get("username") ?? "anonymous"));
      case "/links":
        return html(LINKS_HTML);
      case "/redirect/1":
        return redirectTo(302, "/redirect/2");
      case "/redirect/2":
        return redirectTo(301, "/redirect/3");
      case "/redirect/3":
        return redirectTo(302, "/article");
      case "/redirect-to": {
        const to = query.get("url");
        if (!to || /[\r\n]/.test(to)) {
          return html(statusHtml(400).replace("</h1>", "</h1>\n<p>Missing or invalid ?url=</p>"), 400);
        }
        return redirectTo(302, to);
      }
      case "/latin1":
        return { status: 200, type: "text/html; charset=iso-8859-1", body: latin1Body };
      case "/large":
        return html(largeHtml);
      case "/manual":
        return html(manualHtml);
      case "/headers":
        return html(headersHtml({ ...req.headers }));
      case "/auth":
        return isAuthorized(req)
          ? html(AUTH_OK_HTML)
          : html(AUTH_REQUIRED_HTML, 401, { "WWW-Authenticate": 'Basic realm="fixture"' });
      case "/cookies":
        return html(cookiesHtml(req.headers.cookie ?? ""));
      case "/set-cookie":
        return html(SET_COOKIE_HTML, 200, { "Set-Cookie": "tracker=abc123; Path=/" });
      case "/blocked-resources":
        return html(BLOCKED_RESOURCES_HTML);
      case "/style.css":
        return { status: 200, type: "text/css; charset=utf-8", body: STYLE_CSS };
      case "/app.js":
        return { status: 200, type: "text/javascript; charset=utf-8", body: APP_JS };
      case "/elements":
        return html(ELEMENTS_HTML);
      case "/sitemap.xml":
        return {
          status: 200,
          type: "application/xml; charset=utf-8",
          body: sitemapXml(originOf(req, baseUrl)),
        };
      case "/robots.txt":
        return { status: 200, type: "text/plain; charset=utf-8", body: robotsTxt(originOf(req, baseUrl)) };
    }

    if (path.startsWith("/edited/")) {
      const body = edited.get(path);
      return body === undefined ? html(NOT_FOUND_HTML, 404) : html(body);
    }

    for (const extra of EXTRA_ROUTES) {
      const reply = extra(path, query, originOf(req, baseUrl), req.headers.cookie ?? "", req.headers);
      if (reply) return reply;
    }

    const status = /^\/status\/(\d{3})$/.exec(path);
    const code = Number(status?.[1]);
    if (code >= 200 && code <= 599) {
      // These statuses must not carry a body.
      if (code === 204 || code === 205 || code === 304) return { status: code };
      return html(statusHtml(code), code);
    }

    return html(NOT_FOUND_HTML, 404);
  };

  const server = createServer((req, res) => {
    try {
      const reply = route(req, res);
      if (reply) send(res, reply);
    } catch (err) {
      if (!res.headersSent) {
        send(res, html(statusHtml(500), 500));
      } else {
        res.destroy(err instanceof Error ? err : undefined);
      }
    }
  });

  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolveListen, rejectListen) => {
    const onError = (err: Error) => rejectListen(err);
    server.once("error", onError);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", onError);
      resolveListen();
    });
  });

  const address = server.address() as AddressInfo;
  const port = address.port;
  const urlHost =
    host === "0.0.0.0" || host === "::" || host === ""
      ? "127.0.0.1"
      : host.includes(":")
        ? `[${host}]`
        : host;
  baseUrl = `http://${urlHost}:${port}`;

  let closing: Promise<void> | undefined;

  return {
    url: baseUrl,
    port,
    edit(p, body) {
      if (body === undefined) edited.delete(p);
      else edited.set(p, body);
    },
    hits(p: string): number {
      return hitCounts.get(pathnameOf(p)) ?? 0;
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolveClose) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolveClose());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      return closing;
    },
  };
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(resolve(entry)) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

function argValue(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const prefixed = args.find((a) => a.startsWith(`${name}=`));
  return prefixed?.slice(name.length + 1);
}

if (isMainModule()) {
  const portArg = argValue("--port") ?? process.env.PORT;
  const site = await startFixtureSite({
    port: portArg ? Number(portArg) : 0,
    host: argValue("--host") ?? process.env.HOST ?? "127.0.0.1",
  });
  console.log(site.url);
  const shutdown = () => {
    void site.close().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
