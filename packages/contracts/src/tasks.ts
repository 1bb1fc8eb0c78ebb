import { z } from "zod";
import type { Format } from "./common.ts";
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
export type BrowserTask = ScrapeTask | SessionOpenTask;

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
