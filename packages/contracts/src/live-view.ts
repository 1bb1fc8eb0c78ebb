import { z } from "zod";
import { LINE, text } from "./text.ts";

/**
 * A session's live view: what its current tab shows, streamed to a page the api serves at a signed URL.
 * `view` (the default) only watches; `interactive` lets the viewer click, type and scroll in the page (a
 * person solving what the agent cannot, then handing back); `off` gives no URL.
 */
export const liveViewMode = z
  .enum(["view", "interactive", "off"])
  .default("view")
  .describe(
    "The session's live view (liveViewUrl): view, watch only (default); interactive, the viewer may also click, type and scroll in the page; off, no live view",
  );
export type LiveViewMode = z.infer<typeof liveViewMode>;

/** The most frames a second a watched session sends (Chromium sends one only when the page changed). */
export const LIVE_MAX_FPS = 5;
/** How often a viewer's api says it still watches; the worker stops streaming after three missed. */
export const LIVE_WATCH_EVERY_MS = 4000;

/** What a viewer in interactive mode may do, in the viewport's CSS pixels. */
export const liveInput = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("click"),
    x: z.number().min(0).max(10_000),
    y: z.number().min(0).max(10_000),
    button: z.enum(["left", "right", "middle"]).default("left"),
  }),
  z.strictObject({ type: z.literal("text"), text: text(LINE).min(1).max(1000) }),
  z.strictObject({
    type: z.literal("press"),
    key: text(LINE).min(1).max(50).describe("A key name as KeyboardEvent.key gives it: Enter, Backspace, a"),
  }),
  z.strictObject({
    type: z.literal("scroll"),
    dx: z.number().min(-10_000).max(10_000),
    dy: z.number().min(-10_000).max(10_000),
  }),
]);
export type LiveInput = z.infer<typeof liveInput>;

/** From the api to the worker holding the session (its `live` subject). */
export const liveControl = z.discriminatedUnion("kind", [
  /** Someone watches through this viewer: stream (again) for the next three heartbeats. */
  z.object({ kind: z.literal("watch"), viewer: z.string().max(100) }),
  /** This viewer left. */
  z.object({ kind: z.literal("leave"), viewer: z.string().max(100) }),
  z.object({ kind: z.literal("input"), input: liveInput }),
]);
export type LiveControl = z.infer<typeof liveControl>;

/** From the worker to every viewer of the session (its `view` subject), relayed as server-sent events. */
export const liveEvent = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("frame"),
    data: z.string().describe("A JPEG, base64"),
    width: z.int().describe("The viewport the frame shows, in CSS pixels: where a click at (x, y) lands"),
    height: z.int(),
    at: z.number().describe("When it was drawn, ms since the epoch"),
  }),
  z.object({ kind: z.literal("page"), url: z.string(), title: z.string(), tab: z.string() }),
  z.object({
    kind: z.literal("action"),
    action: z.string().describe("The action's name: type, click, press, ..."),
    target: z.string().optional().describe("The ref it acted on"),
    detail: z.string().optional().describe("What it did; typed text and files only as their size"),
    ok: z.boolean(),
    at: z.number(),
  }),
  z.object({ kind: z.literal("ended"), reason: z.string() }),
]);
export type LiveEvent = z.infer<typeof liveEvent>;

/** The worker's answer to an input. */
export type LiveInputReply = { ok: true } | { ok: false; message: string };
