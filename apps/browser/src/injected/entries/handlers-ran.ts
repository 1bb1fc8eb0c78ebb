import { type Seen, type SettleState, settleApi } from "../lib/settle/api.ts";

/**
 * In the page: once it has run its handlers for what just happened (a task, and the frame callbacks
 * they asked for; see entries/settle-init.ts), its settle state, a fetch, XHR or stream older than
 * `youngMs` not waited for. At once when, since `seen`, the page queued nothing. No frame is waited for
 * when nothing asked for one.
 */
export default function handlersRan([youngMs, seen]: readonly [
  youngMs: number,
  seen: Seen | null,
]): Promise<SettleState | null> {
  const api = settleApi();
  if (api?.handlersRan) return api.handlersRan(youngMs, seen);
  // A document the init script missed: a frame and a task. A message, not a timer: the settle
  // bookkeeping counts a timer as activity.
  return new Promise<null>((r) =>
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => r(null);
      channel.port2.postMessage(0);
    }),
  );
}
