import { drainSubject } from "@browserfleet/bus";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";

/**
 * Listen for drain requests. `onDrain` runs once (later requests are answered without running it again);
 * the request is answered with `{ workerId, draining: true }` once it has started.
 */
export function listenForDrain(
  nc: NatsConnection,
  workerId: string,
  onDrain: () => Promise<void>,
): Subscription {
  let started: Promise<void> | undefined;
  return nc.subscribe(drainSubject(workerId), {
    callback: (err, msg) => {
      if (err) return;
      started ??= onDrain().catch(() => {});
      void started.then(() => {
        if (msg.reply) msg.respond(new TextEncoder().encode(JSON.stringify({ workerId, draining: true })));
      });
    },
  });
}
