/** Worker thread of MarkdownPool: converts one page at a time with the synchronous converter. */
import { parentPort } from "node:worker_threads";
import { htmlToMarkdown } from "./convert.ts";
import type { WorkerReply, WorkerTask } from "./pool.ts";
import { MarkdownOptionError } from "./selectors.ts";

const port = parentPort;
if (!port) throw new Error("worker.ts runs only as a worker thread");

port.on("message", (task: WorkerTask) => {
  let reply: WorkerReply;
  try {
    reply = { id: task.id, ok: true, result: htmlToMarkdown(task.html, task.options) };
  } catch (err) {
    const e = err as Error;
    reply = {
      id: task.id,
      ok: false,
      error: {
        message: String(e?.message ?? err),
        ...(err instanceof MarkdownOptionError ? { code: err.code } : {}),
      },
    };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true } satisfies WorkerReply);
