/** Names on the bus. One work-queue stream carries every browser task. */
export const TASK_STREAM = "FLEET_TASKS";
export const TASK_SUBJECT = "fleet.tasks.browser";
export const WORKER_CONSUMER = "browser-workers";
export const WORKERS_BUCKET = "fleet_workers";
/** Header carrying the core-NATS inbox the api waits on for a synchronous task. */
export const REPLY_HEADER = "Fleet-Reply-To";
