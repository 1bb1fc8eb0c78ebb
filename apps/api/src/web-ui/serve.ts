import type { Response, Router } from "express";
import { ApiError } from "../errors.ts";
import { account } from "../operations/account.ts";
import { accountJobs } from "../operations/account-jobs.ts";
import { accountSessions } from "../operations/account-sessions.ts";
import { accountTransactions } from "../operations/account-transactions.ts";
import { accountUsage } from "../operations/account-usage.ts";
import { prices } from "../operations/prices.ts";
import { ASSETS } from "./generated/assets.ts";

/**
 * What pages for people (the live view, the console) may do: run and style only what this api serves,
 * show images it sends as data URLs, talk only to this api. Scraped titles and URLs are text in these
 * pages; even if one slipped into the markup, no inline script or handler would run.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The replay page's: as strict for its own code, but the recorded page it rebuilds (in a sandboxed frame,
 * which takes this policy) keeps its styles, inline as rrweb stores them, and its images and fonts, which
 * the viewer's browser loads from their sites as the session's browser did (without a referrer). No script
 * of the recorded page can run: rrweb records none, the frame's sandbox allows none, and this allows none.
 */
export const REPLAY_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: http: https:",
  "font-src data: http: https:",
  "media-src data: blob: http: https:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const escapeAttr = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const assetUrl = (name: string) => {
  const a = ASSETS[name];
  if (!a) throw new Error(`no web asset ${name}: run npm run build:web-ui -w @browserfleet/api`);
  return `/ui/${name}?v=${a.hash}`;
};

/** A page of the web UI: its script and stylesheet (pages/<page>.ts and .css), data for it on #app. */
export function pageHtml(page: string, title: string, data: Record<string, string> = {}): string {
  const attrs = Object.entries(data)
    .map(([k, v]) => ` data-${k}="${escapeAttr(v)}"`)
    .join("");
  return [
    "<!doctype html>",
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeAttr(title)}</title>`,
    `<link rel="stylesheet" href="${assetUrl(`${page}.css`)}">`,
    "</head>",
    `<body><div id="app"${attrs}></div><script src="${assetUrl(`${page}.js`)}"></script></body>`,
    "</html>",
  ].join("");
}

/** Sends a page (or a refusal, as a page) with the headers every page for people carries. */
export function sendPage(res: Response, status: number, html: string, csp = PAGE_CSP): void {
  res.status(status);
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Security-Policy", csp);
  // Live view and recording URLs carry their capability: no page of ours hands its URL on.
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
  res.end(html);
}

export const CONSOLE_ROUTE = "/console";

/**
 * GET /ui/<file>: the web UI's scripts and styles, from memory; immutable under their hash.
 * GET /console: the account console (a client of the public /web/v1 routes, signed in with a key).
 */
export function mountWebUi(router: Router): void {
  // The routes the console reads, from their operations: the page never writes a path of the interface.
  const routes = JSON.stringify({
    account: account.path,
    usage: accountUsage.path,
    transactions: accountTransactions.path,
    sessions: accountSessions.path,
    jobs: accountJobs.path,
    prices: prices.path,
  });
  router.get(CONSOLE_ROUTE, (_req, res) =>
    sendPage(res, 200, pageHtml("console", "Browserfleet console", { routes })),
  );
  router.get("/ui/:file", (req, res, next) => {
    const a = ASSETS[String(req.params.file)];
    if (!a) return next(new ApiError("not_found", `no file ${req.params.file} in the web UI`));
    res.setHeader("Content-Type", a.type);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader(
      "Cache-Control",
      req.query.v === a.hash ? "public, max-age=31536000, immutable" : "public, max-age=300",
    );
    res.end(a.body);
  });
}
