import type { Admitted } from "@browserfleet/bus";
import {
  type AnyReply,
  type BrowserTask,
  checkTask,
  TASK_KINDS,
  type TaskError,
  type TaskKind,
} from "@browserfleet/contracts";
import type { BrowserMetrics } from "../metrics.ts";

export type { AnyReply };
/** The error reply every kind shares. */
export type ErrorReply = { ok: false; error: TaskError };

/** How each kind of task is run; a kind missing here does not compile. */
export type TaskHandlers = {
  readonly [K in TaskKind]: (task: Extract<BrowserTask, { kind: K }>) => Promise<AnyReply>;
};

/** Runs a task by its kind. A kind this worker does not know (a newer api during a rolling update) is unavailable. */
export function dispatchTask(handlers: TaskHandlers, task: BrowserTask): Promise<AnyReply> {
  const kind: string = task.kind;
  if (!Object.hasOwn(handlers, kind)) return Promise.resolve(unknownKind(kind));
  return (handlers[task.kind] as (t: BrowserTask) => Promise<AnyReply>)(task);
}

function unknownKind(kind: string, more = ""): ErrorReply {
  return {
    ok: false,
    error: {
      code: "unavailable",
      message: `this browser worker cannot run ${kind} tasks${more}`,
      status: 503,
    },
  };
}

/** Why a message was refused, for the metric: `kind` is a kind of the table or "other". */
export interface Refusal {
  kind: TaskKind | "other";
  reason: "not_json" | "unknown_kind" | "malformed";
  /** The message as parsed, when it was JSON: a page task is answered on the results stream from it. */
  value?: unknown;
}

/**
 * Read a message from the task queue and check it against the task table. A message that is not a task of
 * the table is refused with an error reply, never run: an unknown kind (a newer api during a rolling
 * update) is 503 unavailable, as dispatchTask answers it; anything else malformed is 500 internal, with
 * the fields at fault.
 */
export function readTask(
  data: Uint8Array,
): { task: BrowserTask } | { refused: ErrorReply; refusal: Refusal } {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(data));
  } catch (err) {
    return {
      refused: internal(`the browser worker refused a message that is not JSON: ${(err as Error).message}`),
      refusal: { kind: "other", reason: "not_json" },
    };
  }
  const checked = checkTask(value);
  if (checked.ok) return { task: checked.value };
  if (checked.kind === undefined) {
    if (checked.unknownKind === undefined)
      return {
        refused: internal(`the browser worker refused a message: ${checked.problem}`),
        refusal: { kind: "other", reason: "malformed", value },
      };
    return {
      refused: unknownKind(checked.unknownKind.slice(0, 100), ` (it runs ${TASK_KINDS.join(", ")})`),
      refusal: { kind: "other", reason: "unknown_kind", value },
    };
  }
  return {
    refused: internal(`the browser worker refused a ${checked.problem}`),
    refusal: { kind: checked.kind, reason: "malformed", value },
  };
}

/**
 * The slot loop's admit: readTask, with every refusal counted in fleet_browser_tasks_refused_total, and a
 * refused page task (which has no reply inbox) answered through `refusePage`.
 */
export function admitTasks(
  metrics: Pick<BrowserMetrics, "tasksRefused">,
  refusePage: (value: unknown, reply: ErrorReply) => Promise<void>,
): (data: Uint8Array) => Promise<Admitted<BrowserTask, AnyReply>> {
  return async (data) => {
    const admitted = readTask(data);
    if ("refused" in admitted) {
      const { kind, reason, value } = admitted.refusal;
      metrics.tasksRefused.inc({ kind, reason });
      if (kind === "page") await refusePage(value, admitted.refused).catch(() => {});
    }
    return admitted;
  };
}

function internal(message: string): ErrorReply {
  return { ok: false, error: { code: "internal", message, status: 500 } };
}
