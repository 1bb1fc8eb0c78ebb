import { z } from "zod";
import { format, httpUrl } from "./common.ts";
import { mapRequest, mapResponse } from "./jobs.ts";
import { profileSaved } from "./profiles.ts";
import { formatError, scrapeRequest, scrapeResponse } from "./scrape.ts";
import { action, actResponse, sessionRequest, sessionResponse } from "./session.ts";

/*
 * Messages on the bus. Each is a zod schema, and its TypeScript type is inferred from it, so what is sent
 * and what is checked on receive are one declaration. Envelopes are plain objects: a field a newer sender
 * adds is dropped, not refused, so an api and workers of two versions side by side (a rolling update)
 * still understand each other. Requests inside tasks are the route contracts themselves.
 */

/** Fields every browser task carries. */
const taskEnvelope = {
  taskId: z.string().min(1),
  requestId: z.string(),
  /** Epoch ms after which nobody waits for the result; a worker drops the task unstarted. */
  deadline: z.number(),
};

export const taskError = formatError.extend({ status: z.int().optional() });
export type TaskError = z.infer<typeof taskError>;

/** A worker's answer: `ok: true` with the fields of a success, or `ok: false` with an error. */
function replyOf<S extends z.ZodRawShape>(success: S) {
  return z.discriminatedUnion("ok", [
    z.object({ ok: z.literal(true), ...success }),
    z.object({ ok: z.literal(false), error: taskError }),
  ]);
}

/** Render one page in the formats asked for. */
/**
 * The saved browser state (Playwright's storage state, JSON) of the request's profile, loaded into the
 * task's fresh context: the api (or the jobs program) opened it from the account's sealed profile.
 */
const profileState = { profileState: z.string().optional() };

export const scrapeTask = z.object({
  kind: z.literal("scrape"),
  ...taskEnvelope,
  request: scrapeRequest,
  ...profileState,
});
export type ScrapeTask = z.infer<typeof scrapeTask>;
export const taskReply = replyOf({ result: scrapeResponse });
export type TaskReply = z.infer<typeof taskReply>;

/**
 * Open a live session: the worker that takes it keeps the page in one of its slots and serves the
 * session's own subjects until it is closed, idle for `idleMs`, or `maxMs` old. Its `deadline` is the
 * time by which a worker must have started it; the api answers 429 no_capacity after that.
 */
export const sessionOpenTask = z.object({
  kind: z.literal("session_open"),
  ...taskEnvelope,
  sessionId: z.string().min(1),
  request: sessionRequest,
  idleMs: z.int().min(0),
  maxMs: z.int().min(0),
  ...profileState,
});
export type SessionOpenTask = z.infer<typeof sessionOpenTask>;
/** The worker's answer to a session open: the page, and who holds it. */
export const sessionOpenReply = replyOf({ result: sessionResponse, workerId: z.string() });
export type SessionOpenReply = z.infer<typeof sessionOpenReply>;

/**
 * One page of a batch or crawl. There is no reply inbox: the worker publishes a `PageResult` to the
 * results stream before it acks the task, so a result survives any process dying.
 */
export const pageTask = z.object({
  kind: z.literal("page"),
  ...taskEnvelope,
  jobId: z.string().min(1),
  pageId: z.int(),
  request: scrapeRequest,
  ...profileState,
  /** Crawl: also return the page's links (absolute, as found) for the frontier, at most this many. */
  discoverLinks: z.int().min(0).optional(),
});
export type PageTask = z.infer<typeof pageTask>;

/** List a site's URLs: sitemaps (robots.txt, /sitemap.xml, indexes, gzip) plus the rendered page's links. */
export const mapTask = z.object({
  kind: z.literal("map"),
  ...taskEnvelope,
  request: mapRequest,
  userAgent: z.string(),
});
export type MapTask = z.infer<typeof mapTask>;
export const mapReply = replyOf({ result: mapResponse });
export type MapReply = z.infer<typeof mapReply>;

/** Fetch one small text resource without a browser (robots.txt), through the worker's SSRF guard. */
export const fetchTask = z.object({
  kind: z.literal("fetch"),
  ...taskEnvelope,
  url: httpUrl,
  maxBytes: z.int().min(1),
  userAgent: z.string(),
});
export type FetchTask = z.infer<typeof fetchTask>;
export const fetchReply = replyOf({
  status: z.int(),
  contentType: z.string().optional(),
  body: z.string(),
  finalUrl: z.string(),
  truncated: z.boolean(),
});
export type FetchReply = z.infer<typeof fetchReply>;

/**
 * The task table: every kind of work on the queue, what is sent and what comes back. A page task's
 * reply is not sent to an inbox but inside its `PageResult`.
 */
export const TASKS = {
  scrape: { task: scrapeTask, reply: taskReply },
  session_open: { task: sessionOpenTask, reply: sessionOpenReply },
  page: { task: pageTask, reply: taskReply },
  map: { task: mapTask, reply: mapReply },
  fetch: { task: fetchTask, reply: fetchReply },
} as const;
export type TaskKind = keyof typeof TASKS;
export const TASK_KINDS: readonly TaskKind[] = Object.freeze(Object.keys(TASKS) as TaskKind[]);
export type TaskOf<K extends TaskKind> = z.infer<(typeof TASKS)[K]["task"]>;
export type ReplyOf<K extends TaskKind> = z.infer<(typeof TASKS)[K]["reply"]>;

/** Any task of the table (a new kind is one entry in TASKS). */
export type BrowserTask = TaskOf<TaskKind>;
/** Any reply of the table. */
export type AnyReply = ReplyOf<TaskKind>;

/** What a receiver makes of a message: the value it declares, or why it is not one. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** A task as received: a known kind (or the kind it names that this side does not know) and its check. */
export type CheckedTask =
  | { ok: true; value: BrowserTask }
  | { ok: false; kind: TaskKind; problem: string }
  | { ok: false; kind: undefined; unknownKind: string | undefined; problem: string };

const MAX_ISSUES = 3;

/** The first few issues of a failed check, each as `path: message`, in one line. */
export function describeIssues(error: z.ZodError): string {
  const issues = error.issues.slice(0, MAX_ISSUES).map((i) => {
    const path = i.path.map(String).join(".");
    return path ? `${path}: ${i.message}` : i.message;
  });
  const more = error.issues.length - MAX_ISSUES;
  return issues.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

function isKind(kind: unknown): kind is TaskKind {
  return typeof kind === "string" && Object.hasOwn(TASKS, kind);
}

/**
 * Check a task as a worker receives it (already JSON-parsed). The value returned is the schema's output,
 * so defaults a newer contract added are filled in for a task from an older api.
 */
export function checkTask(value: unknown): CheckedTask {
  const kind = typeof value === "object" && value !== null ? (value as { kind?: unknown }).kind : undefined;
  if (!isKind(kind)) {
    const named = typeof kind === "string" ? kind : undefined;
    const problem =
      named === undefined
        ? "not a task: it has no kind"
        : `unknown task kind ${JSON.stringify(named.slice(0, 100))}; known kinds: ${TASK_KINDS.join(", ")}`;
    return { ok: false, kind: undefined, unknownKind: named, problem };
  }
  const parsed = TASKS[kind].task.safeParse(value);
  if (!parsed.success)
    return { ok: false, kind, problem: `malformed ${kind} task: ${describeIssues(parsed.error)}` };
  return { ok: true, value: parsed.data as BrowserTask };
}

/**
 * Check a message as received against its schema; `what` names it in the problem ("map reply"). On
 * success the value received is returned as it is, not the schema's copy: replies carry large strings
 * (markdown, html, base64 screenshots and PDFs) that are only looked at, never rebuilt, and a field a
 * newer sender adds goes through untouched.
 */
export function checkReceived<S extends z.ZodType>(
  schema: S,
  what: string,
  value: unknown,
): Checked<z.infer<S>> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: `malformed ${what}: ${describeIssues(parsed.error)}` };
  return { ok: true, value: value as z.infer<S> };
}

/** Check a worker's reply to a task of `kind` against the task table (see checkReceived). */
export function checkReply<K extends TaskKind>(kind: K, value: unknown): Checked<ReplyOf<K>> {
  return checkReceived(TASKS[kind].reply, `${kind} reply`, value) as Checked<ReplyOf<K>>;
}

/** A page task's outcome on the results stream, published by the worker before it acks the task. */
export const pageResult = z.object({
  jobId: z.string().min(1),
  pageId: z.int(),
  taskId: z.string(),
  reply: taskReply,
  /** Links found on the page when the task asked for them. */
  links: z.array(z.string()).optional(),
});
export type PageResult = z.infer<typeof pageResult>;

/** What a browser worker publishes about itself in the workers KV bucket; the api and the operator read it. */
export const workerState = z.object({
  workerId: z.string().min(1),
  slots: z.int().min(0),
  busy: z.int().min(0),
  sessions: z.int().min(0),
  draining: z.boolean(),
  /** Near its memory limit: takes no new task (its free slots are not free) until it is back under. */
  memoryPressure: z.boolean().optional(),
  /** Epoch ms of this entry; an entry older than the bucket's TTL is a worker that is gone. */
  updatedAt: z.number(),
});
export type WorkerState = z.infer<typeof workerState>;

/** Sent on the session's act subject. */
export const sessionActMessage = z.object({
  requestId: z.string(),
  actions: z.array(action).min(1),
  formats: z.array(format).min(1).optional(),
  /** Answer with what changed since the session's previous controls map instead of the whole map. */
  changesOnly: z.boolean().optional(),
  /** The most the whole run may take; the worker stops at the next action past it. */
  budgetMs: z.int().min(0),
});
export type SessionActMessage = z.infer<typeof sessionActMessage>;
export const sessionActReply = replyOf({ result: actResponse });
export type SessionActReply = z.infer<typeof sessionActReply>;

export const sessionCloseReply = z.object({
  ok: z.literal(true),
  closedAt: z.string(),
  /** A session opened with profile.save: what saving its state as it closed came to. */
  profile: profileSaved.optional(),
});

/** A worker's request to save a live session's browser state (PROFILE_SAVE_SUBJECT); the reply is a profileSaved. */
export const profileSaveMessage = z.object({
  sessionId: z.string().min(1),
  /** Default: the profile the session opened with. */
  name: z.string().optional(),
  /** Playwright's storage state, JSON. */
  state: z.string(),
  /** Why now: a saveProfile action, or how the session ended. */
  reason: z.string(),
});
export type ProfileSaveMessage = z.infer<typeof profileSaveMessage>;
export type SessionCloseReply = z.infer<typeof sessionCloseReply>;

export const SESSION_END_REASONS = [
  "closed",
  "idle",
  "max_lifetime",
  "browser_lost",
  "worker_stopping",
] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/** Published by the worker whenever a session ends, however it ends. */
export const sessionEnded = z.object({
  sessionId: z.string(),
  workerId: z.string(),
  reason: z.enum(SESSION_END_REASONS),
  at: z.string(),
});
export type SessionEnded = z.infer<typeof sessionEnded>;
