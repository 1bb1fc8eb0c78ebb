/**
 * Sends hostile-string calls (hostile-strings.ts) to an api and says which were answered wrongly: a 5xx, a
 * status the document does not list for the operation, a 400 invalid_request that does not name the field,
 * or a refusal that changed the caller's balance or held money. Each lane is one account's key, its calls in
 * order: what a taken call started (a session, a job) is ended before the next call, so every refusal is
 * measured against a settled balance. Lanes run side by side.
 */
import type { HostileCall } from "./hostile-strings.ts";

// biome-ignore lint/suspicious/noExplicitAny: whatever JSON came back
type Json = any;

export interface Lane {
  key: string;
  calls: HostileCall[];
}

export function hostileClient(apiUrl: string, key: string) {
  // The MCP transport wants both types in Accept; every other route answers JSON whatever it says.
  const auth = { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" };
  const send = async (method: string, path: string, body?: string) => {
    const res = await fetch(apiUrl + path, {
      method,
      headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
      body,
    });
    const text = await res.text();
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json, text };
  };
  const money = async () => {
    const r = await send("GET", "/web/v1/account");
    if (r.status !== 200) throw new Error(`GET /web/v1/account: ${r.status} ${r.text}`);
    return { balance: r.json.balance.micros as number, held: r.json.held.micros as number };
  };
  return { send, money };
}

const describeCall = (c: HostileCall) =>
  `${c.method} ${c.operationId} ${c.where.in} ${c.where.field || "(the body)"} = ${JSON.stringify(c.where.value).slice(0, 60)}`;

async function runLane(apiUrl: string, lane: Lane): Promise<string[]> {
  const { send, money } = hostileClient(apiUrl, lane.key);
  const wrong: string[] = [];
  let before = await money();
  for (const c of lane.calls) {
    const r = await send(c.method, c.url, c.body);
    const what = describeCall(c);
    const documented = (r.status >= 200 && r.status < 300) || c.documented.has(String(r.status));
    if (r.status >= 500 || !documented) {
      wrong.push(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
      before = await money();
    } else if (r.status >= 400) {
      const after = await money();
      if (after.balance !== before.balance || after.held !== before.held)
        wrong.push(`${what}: refused with ${r.status}, yet ${JSON.stringify({ before, after })}`);
      const fields: string[] = r.json?.error?.details?.map((d: { field: string }) => d.field) ?? [];
      const names = (f: string) => f === c.where.field || f.startsWith(`${c.where.field}.`);
      // A path that does not decode names no field: the router cannot say which parameter it was.
      if (r.json?.error?.code === "invalid_request" && c.where.in !== "path" && !fields.some(names))
        wrong.push(`${what}: refused naming ${JSON.stringify(fields)}, not ${c.where.field}`);
    } else {
      // Taken: end what it started, so the next refusal is measured against a settled balance.
      if (c.operationId === "session" && r.json?.sessionId)
        await send("DELETE", `/web/v1/session/${r.json.sessionId}`);
      if (r.json?.jobId && r.json?.url) {
        const job = new URL(r.json.url, apiUrl).pathname;
        let view = await send("DELETE", job);
        while (view.json?.status === "queued" || view.json?.status === "running")
          view = await send("GET", job);
      }
      before = await money();
    }
  }
  return wrong;
}

/** Every lane's wrongly answered calls, the lanes run side by side. */
export async function runHostilePass(apiUrl: string, lanes: Lane[]): Promise<string[]> {
  return (await Promise.all(lanes.map((lane) => runLane(apiUrl, lane)))).flat();
}
