/**
 * A webhook receiver as a caller would run one: it verifies each delivery's Standard Webhooks signature
 * with the library (against the secrets it is given), dedupes by webhook-id, and keeps what came in order.
 * `answer` decides each attempt's status (a receiver that fails its first attempts, or answers 410).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Delivery {
  id: string;
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever the event carries
  data: any;
  body: string;
  headers: IncomingHttpHeaders;
  /** Which of the receiver's secrets verified it (indexes into `secrets`); empty when none did. */
  verifiedBy: number[];
}

export interface Receiver {
  url: string;
  /** Every attempt, in arrival order (duplicates included). */
  attempts: Delivery[];
  /** Each event once (the first attempt the receiver acknowledged), in arrival order. */
  events(): Delivery[];
  secrets: string[];
  /** The status to answer an attempt with; 200 unless set. */
  answer: (d: Delivery, n: number) => number | { status: number; headers?: Record<string, string> };
  close(): Promise<void>;
}

export async function startReceiver(secrets: string[] = []): Promise<Receiver> {
  const attempts: Delivery[] = [];
  const acked = new Map<string, Delivery>();
  const receiver: Receiver = {
    url: "",
    attempts,
    events: () => [...acked.values()],
    secrets,
    answer: () => 200,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const verifiedBy: number[] = [];
      for (const [i, secret] of receiver.secrets.entries()) {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
          verifiedBy.push(i);
        } catch {}
      }
      const parsed = JSON.parse(body);
      const d: Delivery = {
        id: String(req.headers["webhook-id"]),
        type: parsed.type,
        data: parsed.data,
        body,
        headers: req.headers,
        verifiedBy,
      };
      attempts.push(d);
      const a = receiver.answer(d, attempts.length);
      const { status, headers } = typeof a === "number" ? { status: a, headers: {} } : a;
      if (status >= 200 && status < 300 && !acked.has(d.id)) acked.set(d.id, d);
      res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
