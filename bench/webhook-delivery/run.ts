/**
 * Webhook delivery: how soon a receiver hears of a crawl's page, and how many deliveries per second the
 * outbox sends.
 *
 * 1. Latency: a crawl of the fixture site's generated tree with a webhook; for each job.page event, the time
 *    from the page's result being committed (job_pages.finished_at) to the receiver getting it. The
 *    baseline, in the same run: the same bodies POSTed by this process, signed, straight to the same
 *    receiver (the transport's floor). Goal: under 100 ms at the median.
 * 2. Throughput: EVENTS events written to the outbox at once across STREAMS streams (jobs), sent by the jobs
 *    program (WEBHOOK_CONCURRENCY in flight), against the baseline of the same bodies POSTed by this process
 *    at the same concurrency.
 *
 *   npm run bench:webhook-delivery -- [--pages 60] [--events 1000] [--streams 50]
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { schema } from "@browserfleet/db";
import { enqueueEvent, signedHeaders } from "@browserfleet/webhooks";
import { eq } from "drizzle-orm";
import { startStack } from "../../test/helpers/stack.ts";
import { waitFor } from "../../test/helpers/wait-for.ts";

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "60" },
    events: { type: "string", default: "1000" },
    streams: { type: "string", default: "50" },
  },
});
const PAGES = Number(values.pages);
const EVENTS = Number(values.events);
const STREAMS = Number(values.streams);
const CONCURRENCY = 16;

/** A receiver that notes when each delivery arrived, by webhook-id. */
const arrived = new Map<string, { at: number; body: string }>();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    arrived.set(String(req.headers["webhook-id"]), { at: Date.now(), body });
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const stack = await startStack({
  slots: 4,
  env: { WEBHOOK_CONCURRENCY: String(CONCURRENCY), CRAWL_HOST_DELAY_MS: "0", CRAWL_HOST_CONCURRENCY: "4" },
});
const db = stack.pg.database.db;
const auth = { authorization: `Bearer ${stack.key}` };
const secret = (await stack.call("GET", "/web/v1/account/webhook-secret")).body.secret as string;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

/** POST each body signed, `concurrency` at a time, from this process: the baseline. */
async function bare(bodies: string[], concurrency: number): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const one = async () => {
    while (next < bodies.length) {
      const body = bodies[next++] as string;
      const t = performance.now();
      const res = await fetch(receiverUrl, {
        method: "POST",
        headers: {
          ...signedHeaders([secret], `msg_bare_${next}`, new Date(), body),
          "content-type": "application/json",
        },
        body,
      });
      await res.arrayBuffer();
      times.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
  return times;
}

// 1. Latency, page result to receiver.
const start = await stack.post(
  "/web/v1/crawl",
  {
    url: `${stack.site.url}/crawl/gen/0`,
    limit: PAGES,
    maxDepth: 2,
    formats: ["markdown"],
    webhook: { url: receiverUrl, events: ["job.page", "job.completed"] },
  },
  auth,
);
if (start.status !== 200) throw new Error(`crawl failed to start: ${JSON.stringify(start.body)}`);
const events = await waitFor(
  "the crawl's job.completed",
  async () => {
    const got = [...arrived.values()].map((a) => ({ ...a, event: JSON.parse(a.body) }));
    if (!got.some((a) => a.event.type === "job.completed")) throw new Error("not yet");
    return got.filter((a) => a.event.type === "job.page");
  },
  10 * 60_000,
  50,
);
const finished = new Map(
  (
    await db
      .select({ url: schema.jobPages.url, at: schema.jobPages.finishedAt })
      .from(schema.jobPages)
      .where(eq(schema.jobPages.jobId, start.body.jobId))
  ).map((r) => [r.url, r.at?.getTime() ?? Number.NaN]),
);
const latencies = events.map((e) => e.at - (finished.get(e.event.data.page.url) ?? Number.NaN));
const pageBodies = events.map((e) => e.body);
const bareOne = await bare(pageBodies, 1);
const ours50 = quantile(latencies, 0.5);
const bare50 = quantile(bareOne, 0.5);
console.log(`webhook-delivery: ${events.length} job.page events of a ${PAGES}-page crawl`);
console.log(
  `  ours (result committed → received): median ${ours50.toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms (goal: median under 100 ms)`,
);
console.log(
  `  bare (the same bodies, signed, POSTed one at a time): median ${bare50.toFixed(1)} ms, p99 ${quantile(bareOne, 0.99).toFixed(1)} ms`,
);
console.log(`ratio ours/bare at the median: ${(ours50 / bare50).toFixed(2)}`);

// 2. Throughput: EVENTS events across STREAMS streams, written at once.
arrived.clear();
const body = pageBodies[0] ?? "{}";
const { accountId } = stack;
const t0 = Date.now();
await db.transaction(async (tx) => {
  for (let i = 0; i < EVENTS; i++)
    await enqueueEvent(tx, {
      accountId,
      stream: `bench:${i % STREAMS}`,
      webhook: { url: receiverUrl },
      type: "job.page",
      data: JSON.parse(body).data ?? {},
    });
});
const written = Date.now();
stack.jobs?.poke();
await waitFor(
  `${EVENTS} deliveries`,
  async () => {
    if (arrived.size < EVENTS) throw new Error(`${arrived.size} so far`);
    return true;
  },
  10 * 60_000,
  20,
);
const oursMs = Date.now() - written;
const bareStart = performance.now();
await bare(
  Array.from({ length: EVENTS }, () => body),
  CONCURRENCY,
);
const bareMs = performance.now() - bareStart;
const oursRate = EVENTS / (oursMs / 1000);
const bareRate = EVENTS / (bareMs / 1000);
console.log(
  `  throughput: ours ${oursRate.toFixed(0)} deliveries/s (${EVENTS} events in ${STREAMS} streams, written in ${written - t0} ms), bare ${bareRate.toFixed(0)}/s at concurrency ${CONCURRENCY}`,
);
console.log(`ratio ours/bare throughput: ${(oursRate / bareRate).toFixed(2)}`);

await stack.stop();
receiver.close();
