/** Names on the bus. One work-queue stream carries every browser task. */
export const TASK_STREAM = "FLEET_TASKS";
export const TASK_SUBJECT = "fleet.tasks.browser";
export const WORKER_CONSUMER = "browser-workers";
export const WORKERS_BUCKET = "fleet_workers";
/** Header carrying the core-NATS inbox the api waits on for a synchronous task. */
export const REPLY_HEADER = "Fleet-Reply-To";
/** Header asking the worker to tell the inbox as soon as it starts the task (before the reply). */
export const START_NOTICE_HEADER = "Fleet-Start-Notice";

/**
 * A live session's own subjects: only the worker that holds session `id` subscribes to act, close and live
 * (a viewer watching, leaving, or its input); it publishes what a viewer sees on view, which every api
 * relaying a live view subscribes to.
 */
export const sessionSubject = (id: string, verb: "act" | "close" | "live" | "view") =>
  `fleet.session.${id}.${verb}`;
/** Every worker publishes here when one of its sessions ends, however it ends. */
export const SESSION_ENDED_SUBJECT = "fleet.sessions.ended";
/**
 * A worker asks here (request-reply, api queue group) to save a session's browser state to its profile: the
 * api finds the session's account and profile in its row, seals the state and stores it.
 */
export const PROFILE_SAVE_SUBJECT = "fleet.profiles.save";
/**
 * A recorded session's worker sends its recording here in parts as it runs (request-reply, api queue
 * group): the api stores each part with the artifacts and notes it under the session.
 */
export const RECORDING_SAVE_SUBJECT = "fleet.recordings.save";
/** Session ids become subject tokens, so they are restricted to these characters. */
export const SESSION_ID_PATTERN = /^ses_[0-9A-Za-z]{8,64}$/;

/** Page results of batch and crawl jobs: workers publish, the jobs program consumes (durable). */
export const RESULTS_STREAM = "FLEET_RESULTS";
export const RESULTS_SUBJECT = "fleet.jobs.results";
export const JOBS_CONSUMER = "jobs";
/** How long the jobs program may hold a result before it is redelivered. */
export const RESULTS_ACK_WAIT_MS = 30_000;
/** Core NATS nudge: "a job was created or cancelled, look now" (the jobs program also polls). */
export const JOBS_WAKE_SUBJECT = "fleet.jobs.wake";

/**
 * The core-NATS subject on which the operator tells one worker to drain before a scale-down removes its
 * pod: stop pulling tasks, finish the held ones, keep serving live sessions until they end. The worker
 * id is the pod name (WORKER_ID from metadata.name), a valid subject token.
 */
export const drainSubject = (workerId: string) => `fleet.workers.${workerId}.drain`;
