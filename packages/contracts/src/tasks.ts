import { z } from "zod";
import type { Format } from "./common.ts";
import type { MapRequest, MapResponse } from "./jobs.ts";
import type { ScrapeRequest, ScrapeResponse } from "./scrape.ts";
import { formatError } from "./scrape.ts";
import type { Action, ActResponse, SessionRequest, SessionResponse } from "./session.ts";

/** A unit of browser work on the JetStream work queue. */
export interface ScrapeTask {
  kind: "scrape";
  taskId: string;
  requestId: string;
  /** Epoch ms after which nobody waits for the result; a worker drops the task unstarted. */
  deadline: number;
  request: ScrapeRequest;
}

/**
 * Open a live session: the worker that takes it keeps the page in one of its slots and serves the
 * session's own subjects until it is closed, idle for `idleMs`, or `maxMs` old.
 */
export interface SessionOpenTask {
  kind: "session_open";
  taskId: string;
  requestId: string;
  /** Epoch ms by which a worker must have started it; the api answers 429 no_capacity after that. */
  deadline: number;
  sessionId: string;
  request: SessionRequest;
  idleMs: number;
  maxMs: number;
}
/**
 * One page of a batch or crawl. There is no reply inbox: the worker publishes a `PageResult` to the
 * results stream before it acks the task, so a result survives any process dying.
 */
export interface PageTask {
  kind: "page";
  taskId: string;
  requestId: string;
  deadline: number;
  jobId: string;
  pageId: number;
  request: ScrapeRequest;
  /** Crawl: also return the page's links (absolute, as found) for the frontier, at most this many. */
  discoverLinks?: number;
}

/** List a site's URLs: sitemaps (robots.txt, /sitemap.xml, indexes, gzip) plus the rendered page's links. */
export interface MapTask {
  kind: "map";
  taskId: string;
  requestId: string;
  deadline: number;
  request: MapRequest;
  userAgent: string;
}

/** Fetch one small text resource without a browser (robots.txt), through the worker's SSRF guard. */
export interface FetchTask {
  kind: "fetch";
  taskId: string;
  requestId: string;
  deadline: number;
  url: string;
  maxBytes: number;
  userAgent: string;
}

export type BrowserTask = ScrapeTask | SessionOpenTask | PageTask | MapTask | FetchTask;

export interface PageResult {
  jobId: string;
  pageId: number;
  taskId: string;
  reply: TaskReply;
  /** Links found on the page when the task asked for them. */
  links?: string[];
}

export type MapReply = { ok: true; result: MapResponse } | { ok: false; error: TaskError };

export type FetchReply =
  | { ok: true; status: number; contentType?: string; body: string; finalUrl: string; truncated: boolean }
  | { ok: false; error: TaskError };

export const taskError = formatError.extend({ status: z.int().optional() });
export type TaskError = z.infer<typeof taskError>;

export type TaskReply = { ok: true; result: ScrapeResponse } | { ok: false; error: TaskError };

/** The worker's answer to a session open: the page, and who holds it. */
export type SessionOpenReply =
  | { ok: true; result: SessionResponse; workerId: string }
  | { ok: false; error: TaskError };

/** Sent on the session's act subject. */
export interface SessionActMessage {
  requestId: string;
  actions: Action[];
  formats?: Format[];
  /** The most the whole run may take; the worker stops at the next action past it. */
  budgetMs: number;
}
export type SessionActReply = { ok: true; result: ActResponse } | { ok: false; error: TaskError };

export type SessionCloseReply = { ok: true; closedAt: string };

export type SessionEndReason = "closed" | "idle" | "max_lifetime" | "browser_lost" | "worker_stopping";

/** Published by the worker whenever a session ends, however it ends. */
export interface SessionEnded {
  sessionId: string;
  workerId: string;
  reason: SessionEndReason;
  at: string;
}
