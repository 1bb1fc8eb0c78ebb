/**
 * Sessions whose browser goes away: the worker runs as a child process here so the test can kill it,
 * and the idle timeout is short so expiry can be watched.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type RunningApi, startApi } from "@browserfleet/api";
import { createAccount, issueKey } from "@browserfleet/billing";
import { type LocalNats, startLocalNats } from "@browserfleet/bus";
import { loadConfig } from "@browserfleet/config";
import { type FixtureSite, startFixtureSite } from "../fixture-site/server.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { spawnBrowserWorker } from "../helpers/programs.ts";
import { waitFor } from "../helpers/wait-for.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;

const IDLE_MS = 4000;
let dir: string;
let site: FixtureSite;
let nats: LocalNats;
let pg: TestPostgres;
let api: RunningApi;
let key: string;
let accountId: string;
const workers: ChildProcess[] = [];

/** A browser worker in its own process; resolves once it serves. */
async function spawnWorker(): Promise<ChildProcess> {
  const child = await spawnBrowserWorker(nats.url, 2);
  workers.push(child);
  return child;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "fleet-lost-"));
  site = await startFixtureSite();
  [nats, pg] = await Promise.all([startLocalNats({ dataDir: join(dir, "nats") }), startTestPostgres()]);
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    FLEET_ALLOW_PRIVATE: "127.0.0.1/32",
    SESSION_IDLE_TIMEOUT_MS: String(IDLE_MS),
  });
  api = await startApi({ ...config, NATS_URL: nats.url, DATABASE_URL: pg.url });
  ({ accountId } = await createAccount(pg.database.db, { balanceMicros: 10_000_000 }));
  ({ key } = await issueKey(pg.database.db, accountId, "lost"));
});

after(async () => {
  for (const w of workers) w.kill("SIGKILL");
  await api?.close();
  await nats?.stop();
  await pg?.stop();
  await site?.close();
  await rm(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: Json) {
  const res = await fetch(api.url + path, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

async function balance(): Promise<number> {
  return (await call("GET", "/web/v1/account")).body.balance.micros;
}

test("killing the worker that holds a session: the next act answers 410 session_lost at once, free", async () => {
  const worker = await spawnWorker();
  const opened = await call("POST", "/web/v1/session", { url: `${site.url}/form` });
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const id = opened.body.sessionId;
  const ok = await call("POST", "/web/v1/act", { sessionId: id, actions: [{ press: "Tab" }] });
  assert.equal(ok.status, 200);

  worker.kill("SIGKILL");
  await new Promise((r) => worker.once("exit", r));
  const before = await balance();
  const lost = await call("POST", "/web/v1/act", { sessionId: id, actions: [{ press: "Tab" }] });
  assert.equal(lost.status, 410, JSON.stringify(lost.body));
  assert.equal(lost.body.error.code, "session_lost");
  // 3 minutes of $0.004 (the 4 s idle timeout plus an act's 2 minutes), held at open, all given back
  assert.equal(
    await balance(),
    before + 12_000,
    "a lost session's act costs nothing, nor does its idle tail",
  );
  const closed = await call("DELETE", `/web/v1/session/${id}`);
  assert.equal(closed.status, 410);
  assert.equal(closed.body.error.code, "session_lost");
});

test("an idle session closes by itself, its slot frees, and the sessions view says why", async () => {
  await spawnWorker();
  const opened = await call("POST", "/web/v1/session", { url: `${site.url}/form`, formats: ["markdown"] });
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const id = opened.body.sessionId;
  const expiresAt = Date.parse(opened.body.metadata.expiresAt);
  assert.ok(expiresAt - Date.now() <= IDLE_MS, "expiresAt shows the idle timeout");
  // The idle timeout is real time here (the worker is another process): wait for the close it makes.
  const row = await waitFor(
    "the sessions view to show the session expired",
    async () => {
      const view = await call("GET", "/web/v1/account/sessions");
      const s = view.body.sessions.find((x: Json) => x.sessionId === id);
      return s?.status === "expired" ? s : undefined;
    },
    IDLE_MS + 10_000,
    100,
  );
  assert.ok(Date.now() >= expiresAt - 50, "it did not close before its idle timeout");
  assert.equal(row.closeReason, "idle timeout");
  const late = await call("POST", "/web/v1/act", { sessionId: id, actions: [{ press: "Tab" }] });
  assert.equal(late.status, 410, JSON.stringify(late.body));
  assert.equal(late.body.error.code, "session_closed");
  assert.match(late.body.error.message, /idle/);
  // Both slots are free again: two sessions open side by side.
  const a = await call("POST", "/web/v1/session", { url: `${site.url}/form` });
  const b = await call("POST", "/web/v1/session", { url: `${site.url}/form` });
  assert.deepEqual([a.status, b.status], [200, 200]);
});

test("a worker that vanishes without closing its connection: the act answers 410 session_lost once its heartbeats stop, not after the act's whole wait", async () => {
  // A pod whose network is torn down never closes its TCP connection: the NATS server keeps routing the
  // session's subject to it until its pings time out. A stopped process reproduces that here.
  for (const w of workers.splice(0)) {
    w.kill("SIGKILL");
    if (w.exitCode === null && w.signalCode === null) await new Promise((r) => w.once("exit", r));
  }
  const patient = await startApi({
    ...loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      FLEET_ALLOW_PRIVATE: "127.0.0.1/32",
      // Long enough that an act waiting for its answer would end in a 504 after the worker is dropped.
      ACT_TIMEOUT_MS: "30000",
    }),
    NATS_URL: nats.url,
    DATABASE_URL: pg.url,
  });
  try {
    const worker = await spawnWorker();
    const at = (method: string, path: string, body?: Json) =>
      fetch(patient.url + path, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));
    const opened = await at("POST", "/web/v1/session", { url: `${site.url}/form` });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const id = opened.body.sessionId;
    assert.equal(
      (await at("POST", "/web/v1/act", { sessionId: id, actions: [{ press: "Tab" }] })).status,
      200,
    );

    worker.kill("SIGSTOP");
    const before = await balance();
    const lost = await at("POST", "/web/v1/act", { sessionId: id, actions: [{ press: "Tab" }] });
    assert.equal(lost.status, 410, JSON.stringify(lost.body));
    assert.equal(lost.body.error.code, "session_lost");
    assert.ok((await balance()) >= before, "the act that found no browser cost nothing");
    const again = await at("POST", "/web/v1/act", { sessionId: id, actions: [{ press: "Tab" }] });
    assert.equal(again.status, 410, "the session stays lost");
  } finally {
    await patient.close();
  }
});
