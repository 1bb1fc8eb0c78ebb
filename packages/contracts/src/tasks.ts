import { z } from "zod";
import type { ScrapeRequest, ScrapeResponse } from "./scrape.ts";
import { formatError } from "./scrape.ts";

/** A unit of browser work on the JetStream work queue. */
export interface ScrapeTask {
  kind: "scrape";
  taskId: string;
  requestId: string;
  /** Epoch ms after which nobody waits for the result; a worker drops the task unstarted. */
  deadline: number;
  request: ScrapeRequest;
}
export type BrowserTask = ScrapeTask;

export type TaskReply =
  | { ok: true; result: ScrapeResponse }
  | { ok: false; error: z.infer<typeof taskError> };

export const taskError = formatError.extend({ status: z.int().optional() });
