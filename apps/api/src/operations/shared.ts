import {
  MalformedReplyError,
  QueueFullError,
  runTask,
  TaskNotStartedError,
  TaskTimeoutError,
} from "@browserfleet/bus";
import {
  type BrowserTask,
  ERROR_STATUS,
  type ErrorCode,
  type ReplyOf,
  type ScrapeRequest,
  type TaskError,
} from "@browserfleet/contracts";
import { schemaProblem } from "@browserfleet/extract";
import { SsrfError } from "@browserfleet/ssrf";
import { malformedReply } from "../bus-replies.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";

/*
 * What several operations share: the URL pre-check, a browser task with the answers every synchronous
 * operation gives, and a worker's error reply as the caller's error.
 */

/** A fast 400 for a URL the guard refuses, before any quote or payment (the worker's proxy checks every hop again). */
export async function precheckUrl(
  ctx: Pick<ApiContext, "guard">,
  url: string | undefined,
  field = "url",
): Promise<void> {
  if (!url) return;
  try {
    await ctx.guard.check(url);
  } catch (err) {
    if (err instanceof SsrfError)
      throw new ApiError(err.code, err.message, [{ field, message: err.message }]);
    throw err;
  }
}

export interface SendOptions {
  /** Refuse with `busy` unless a worker starts the task this soon (a session open waits only so long for a slot). */
  startWithinMs?: number;
  /** The 429 when every slot is busy; the default speaks of a full queue. */
  busy?: () => ApiError;
  /** Said of the task in a timeout's message, when it is not the whole wait (a session's own budget). */
  timeoutMs?: number;
  /** A reply that could not be read may still have done its work: undo it (close a session it opened). */
  onMalformed?: () => void;
}

const queueFull = () =>
  new ApiError(
    "no_capacity",
    "every browser slot is busy and the queue is full; retry after a few seconds",
    undefined,
    { "Retry-After": "5" },
  );

/**
 * Send one task to the browser queue and wait for its reply, with the answers every synchronous operation
 * gives: 503 when no worker runs or the bus is down, 429 when the queue is full (or no slot starts it in
 * time), 504 when late, 500 when the reply is not what the task table declares for the task's kind.
 */
export async function sendBrowserTask<T extends BrowserTask>(
  ctx: ApiContext,
  task: T,
  waitMs: number,
  what: string,
  opts: SendOptions = {},
): Promise<ReplyOf<T["kind"]>> {
  if (!(await ctx.workers.anyAlive())) {
    throw new ApiError("unavailable", "no browser worker is running; try again shortly", undefined, {
      "Retry-After": "5",
    });
  }
  try {
    return await runTask(ctx.nc, task, waitMs, { startWithinMs: opts.startWithinMs });
  } catch (err) {
    if (err instanceof MalformedReplyError) {
      opts.onMalformed?.();
      throw malformedReply(ctx.metrics, err.kind, err.message, what);
    }
    if (err instanceof QueueFullError || err instanceof TaskNotStartedError) throw (opts.busy ?? queueFull)();
    if (err instanceof TaskTimeoutError)
      throw new ApiError("timeout", `the ${what} did not finish within ${opts.timeoutMs ?? waitMs} ms`);
    throw new ApiError("unavailable", `the work queue is unreachable: ${(err as Error).message}`, undefined, {
      "Retry-After": "5",
    });
  }
}

/**
 * A worker's error reply as the caller's error: its code when the interface has it, else `fallback` (what
 * failing means for that work: a render that failed, or a site that did).
 */
export function taskFailed(error: TaskError, fallback: ErrorCode = "render_failed"): ApiError {
  const code = error.code in ERROR_STATUS ? (error.code as ErrorCode) : fallback;
  // A worker refuses input JSON Schema cannot judge (a CSS selector that does not parse) as "field: why".
  const named = code === "invalid_request" ? /^([A-Za-z][\w.]*): (.+)$/s.exec(error.message) : null;
  return new ApiError(code, error.message, named ? [{ field: named[1]!, message: named[2]! }] : undefined);
}

/** json options must say what to extract, with a schema a validator can compile. */
export function checkJsonOptions(json: ScrapeRequest["json"], field = "json"): void {
  if (!json) return;
  if (json.prompt === undefined && json.schema === undefined) {
    const message = "json needs a prompt, a schema, or both";
    throw new ApiError("invalid_request", message, [{ field, message }]);
  }
  const problem = json.schema ? schemaProblem(json.schema) : undefined;
  if (problem)
    throw new ApiError("invalid_request", problem, [{ field: `${field}.schema`, message: problem }]);
}

/** A page cursor the caller did not get from us. */
export function badCursor(): ApiError {
  return new ApiError("invalid_request", "cursor is not one this api gave out", [
    { field: "cursor", message: "use the `next` value of the previous page" },
  ]);
}

/** A numeric page cursor (a row id), as the ledger and job pages give them out. */
export function numericCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  if (!/^\d{1,15}$/.test(cursor)) throw badCursor();
  return Number(cursor);
}

/** A time page cursor, `<ISO time>~<id>`, as the sessions and jobs views give them out. */
export function timeCursor(cursor: string | undefined): { at: Date; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const [at, id] = cursor.split("~");
  const when = new Date(at ?? "");
  if (!id || Number.isNaN(when.getTime())) throw badCursor();
  return { at: when, id };
}
