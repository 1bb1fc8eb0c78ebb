import { createServer, type IncomingMessage, type Server } from "node:http";

/** What the fake model answers to one chat-completions request. */
export type FakeAnswer =
  | { content: string }
  | { refusal: string }
  | { status: number; error: string }
  | { hang: true };

export interface FakeLlm {
  /** Base URL to configure as LLM_BASE_URL (…/v1). */
  url: string;
  /** Bodies of the requests received, newest last. */
  requests: Array<{ authorization?: string; body: Record<string, unknown> }>;
  /** Decide the answer per request (default: the JSON of `{ title }` read from the page's first heading). */
  answer: (body: Record<string, unknown>) => FakeAnswer;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
};

/** The user message the service sent (prompt, schema and page). */
export const userMessage = (body: Record<string, unknown>) =>
  String((body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "user")?.content);

/**
 * A local server that speaks OpenAI's chat-completions format (`POST /v1/chat/completions`, answers
 * `{ choices: [{ message: { content | refusal } }] }`, errors `{ error: { message } }`), for tests.
 */
export async function startFakeLlm(): Promise<FakeLlm> {
  const hanging = new Set<import("node:http").ServerResponse>();
  const fake: FakeLlm = {
    url: "",
    requests: [],
    answer: (body) => {
      const heading = /^# (.+)$/m.exec(userMessage(body))?.[1] ?? null;
      return { content: JSON.stringify({ title: heading }) };
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const body = await readBody(req);
    fake.requests.push({ authorization: req.headers.authorization, body });
    const a = fake.answer(body);
    if ("hang" in a) {
      hanging.add(res);
      return;
    }
    if ("status" in a) {
      res
        .writeHead(a.status, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: a.error } }));
      return;
    }
    const message =
      "refusal" in a
        ? { role: "assistant", content: null, refusal: a.refusal }
        : { role: "assistant", content: a.content };
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: "chatcmpl-test",
        object: "chat.completion",
        model: body.model,
        choices: [{ index: 0, message, finish_reason: "stop" }],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  return fake;
}
