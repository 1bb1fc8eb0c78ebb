import type { BrowserTask, FetchReply, MapReply, SessionOpenReply, TaskReply } from "@browserfleet/contracts";

export type AnyReply = TaskReply | SessionOpenReply | MapReply | FetchReply;
type TaskKind = BrowserTask["kind"];

/** How each kind of task is run; a kind missing here does not compile. */
export type TaskHandlers = {
  readonly [K in TaskKind]: (task: Extract<BrowserTask, { kind: K }>) => Promise<AnyReply>;
};

/** Runs a task by its kind. A kind this worker does not know (a newer api during a rolling update) is unavailable. */
export function dispatchTask(handlers: TaskHandlers, task: BrowserTask): Promise<AnyReply> {
  const kind: string = task.kind;
  if (!Object.hasOwn(handlers, kind))
    return Promise.resolve({
      ok: false,
      error: { code: "unavailable", message: `this browser worker cannot run ${kind} tasks`, status: 503 },
    });
  return (handlers[task.kind] as (t: BrowserTask) => Promise<AnyReply>)(task);
}
