import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BrowserTask } from "@browserfleet/contracts";
import { type AnyReply, dispatchTask, type TaskHandlers } from "../src/tasks/dispatch.ts";

/** Handlers that answer with the kind they were given and note which one ran. */
function recording() {
  const ran: string[] = [];
  const answer = (kind: string, task: BrowserTask): Promise<AnyReply> => {
    ran.push(kind);
    return Promise.resolve({ ok: false, error: { code: kind, message: task.taskId, status: 500 } });
  };
  const handlers: TaskHandlers = {
    scrape: (t) => answer("scrape", t),
    session_open: (t) => answer("session_open", t),
    page: (t) => answer("page", t),
    map: (t) => answer("map", t),
    fetch: (t) => answer("fetch", t),
  };
  return { handlers, ran };
}

const task = (kind: string) => ({ kind, taskId: `t-${kind}`, requestId: "r", deadline: 0 }) as BrowserTask;

describe("task dispatch", () => {
  it("runs each task on the handler of its kind, once", async () => {
    const { handlers, ran } = recording();
    for (const kind of ["map", "fetch", "scrape", "page", "session_open"]) {
      const reply = await dispatchTask(handlers, task(kind));
      assert.deepEqual(reply, { ok: false, error: { code: kind, message: `t-${kind}`, status: 500 } });
    }
    assert.deepEqual(ran, ["map", "fetch", "scrape", "page", "session_open"]);
  });

  it("answers a kind it does not know (a newer api) unavailable, and runs nothing", async () => {
    const { handlers, ran } = recording();
    for (const kind of ["screencast", "toString", "constructor"]) {
      const reply = await dispatchTask(handlers, task(kind));
      assert.deepEqual(reply, {
        ok: false,
        error: { code: "unavailable", message: `this browser worker cannot run ${kind} tasks`, status: 503 },
      });
    }
    assert.deepEqual(ran, []);
  });
});
