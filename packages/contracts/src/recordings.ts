import { z } from "zod";

/**
 * Session recordings. A recorded session's worker records the DOM of its active tab with rrweb (the page's
 * structure once, then its changes, inputs, scrolls and pointer moves: a few KiB a minute where screencast
 * frames are hundreds, and a replay that is sharp at any size and lets a person read and copy the page's
 * text), with the agent's actions as events of their own. Values typed into password fields are recorded
 * masked, in the page, before anything leaves it.
 */
export const recordField = z
  .boolean()
  .default(false)
  .describe(
    "Record the session (its active tab's DOM, with rrweb, and each action) for replay at recordingUrl; values typed into password fields are never recorded. Adds a price per minute the session stays open",
  );

/** Where a recording stands. */
export const recordingStatus = z
  .enum(["recording", "ready", "empty", "expired"])
  .describe(
    "recording: the session is open and parts arrive as it runs; ready: complete; empty: nothing was recorded (the page never loaded); expired: past its retention, deleted",
  );

/** A recording as the sessions view lists it. */
export const recordingInfo = z.object({
  url: z
    .string()
    .optional()
    .describe("Replay page (the recordingUrl session open gave); absent once expired"),
  status: recordingStatus,
  durationMs: z.int().describe("From its first event to its last"),
  bytes: z.int().describe("Stored size (compressed)"),
  events: z.int(),
  truncated: z
    .boolean()
    .optional()
    .describe("It reached the deployment's largest recording (RECORDING_MAX_BYTES) and stopped there"),
  expiresAt: z.string().describe("When it is deleted"),
});
export type RecordingInfo = z.infer<typeof recordingInfo>;

/**
 * One part of a recording, from the worker to an api replica (request-reply on RECORDING_SAVE_SUBJECT):
 * the body is gzip of newline-delimited rrweb events; these headers say whose and which.
 */
export const RECORDING_HEADERS = {
  session: "Bf-Session",
  /** Parts of a session are numbered from 0; a part saved twice (a retry) is kept once. */
  seq: "Bf-Seq",
  events: "Bf-Events",
  /** The first and last event's time, ms since the epoch. */
  from: "Bf-From",
  to: "Bf-To",
  /** "1" on the session's last part. */
  final: "Bf-Final",
} as const;

/** The api's answer to a part: stored, or why not (stop: send no more parts for this session). */
export const recordingPartSaved = z.union([
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), message: z.string(), stop: z.boolean() }),
]);
export type RecordingPartSaved = z.infer<typeof recordingPartSaved>;
