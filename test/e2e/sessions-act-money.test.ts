/**
 * What an act charges when things go wrong or run side by side: the worker runs as a child process so a
 * test can kill it in the middle of an act, and every act's ledger rows are read back by its request id.
 * A key's acts on a session the api has acted on before set their quote aside from the api's balance
 * lease, whose ledger rows are written in batches (reading the account through the api writes them
 * first); the first holds its quote in the ledger.
 */
import assert from "node:assert/strict";
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
import { type BrowserWorkerProcess, killHard, spawnBrowserWorker } from "../helpers/programs.ts";
import { waitFor } from "../helpers/wait-for.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
type Json = any;

/** The price of one action that ran ($0.0005). */
const ACTION = 500;
/** Short, so an act whose worker died answers within seconds (the api waits the budget plus 15 s). */
const ACT_TIMEOUT_MS = 2000;
let dir: string;
let site: FixtureSite;
let nats: LocalNats;
let pg: TestPostgres;
let api: RunningApi;
const workers: BrowserWorkerProcess[] = [];

async function spawnWorker(): Promise<BrowserWorkerProcess> {
  const child = await spawnBrowserWorker(nats.url, 3);
  workers.push(child);
  return child;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "fleet-act-money-"));
  site = await startFixtureSite();
  [nats, pg] = await Promise.all([startLocalNats({ dataDir: join(dir, "nats") }), startTestPostgres()]);
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    FLEET_ALLOW_PRIVATE: "127.0.0.1/32",
    ACT_TIMEOUT_MS: String(ACT_TIMEOUT_MS),
  });
  api = await startApi({ ...config, NATS_URL: nats.url, DATABASE_URL: pg.url });
});

after(async () => {
  for (const w of workers) await killHard(w);
  await api?.close();
  await nats?.stop();
  await pg?.stop();
  await site?.close();
  await rm(dir, { recursive: true, force: true });
});

async function newKey(balanceMicros: number): Promise<{ key: string; accountId: string }> {
  const { accountId } = await createAccount(pg.database.db, { balanceMicros });
  const { key } = await issueKey(pg.database.db, accountId, "act-money");
  return { key, accountId };
}

async function call(key: string, method: string, path: string, body?: Json, requestId?: string) {
  const res = await fetch(api.url + path, {
    method,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${key}`,
      ...(requestId ? { "x-request-id": requestId } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

/** What the ledger says one call did: held, captured and refunded (micros), and its rows' kinds in order. */
async function ledgerOf(requestId: string) {
  const rows = await pg.database.sql`
    select kind, amount_micros, held_micros from ledger_entries where request_id = ${requestId} order by id`;
  const sum = (kind: string) =>
    rows.filter((r) => r.kind === kind).reduce((a, r) => a + Math.abs(Number(r.held_micros)), 0);
  return {
    kinds: rows.map((r) => r.kind as string),
    held: sum("hold"),
    captured: sum("capture"),
    refunded: sum("refund"),
  };
}

/**
 * The account as its owner sees it, its lease's calls written first (balance counts what the api's lease
 * holds; held, the ledger holds of calls in flight), and whether the ledger adds up to the balance.
 */
async function accountView(key: string, accountId: string) {
  const view = await call(key, "GET", "/web/v1/account");
  assert.equal(view.status, 200, JSON.stringify(view.body));
  const books = await accountBooks(accountId);
  return {
    balance: Number(view.body.balance.micros),
    held: Number(view.body.held.micros),
    addsUp: books.amount === books.balance,
  };
}

async function accountBooks(accountId: string) {
  const [acct] = await pg.database.sql`select balance_micros from accounts where id = ${accountId}`;
  const [sums] = await pg.database.sql`
    select coalesce(sum(amount_micros), 0)::bigint as amount, coalesce(sum(held_micros), 0)::bigint as held
    from ledger_entries where account_id = ${accountId}`;
  return { balance: Number(acct?.balance_micros), amount: Number(sums?.amount), held: Number(sums?.held) };
}

test("a worker that dies in the middle of an act: the act fails and charges nothing", async () => {
  const worker = await spawnWorker();
  const { key, accountId } = await newKey(1_000_000);
  const opened = await call(key, "POST", "/web/v1/session", { url: `${site.url}/form` });
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const id = opened.body.sessionId;
  const before = await accountView(key, accountId);

  const requestId = `act-dies-${Date.now()}`;
  const running = call(
    key,
    "POST",
    "/web/v1/act",
    { sessionId: id, actions: [{ press: "Tab" }, { wait: { ms: 1500 } }, { press: "Tab" }] },
    requestId,
  );
  // The act is on the worker, in its 1.5 s wait (its first action done), when the worker dies.
  await waitFor(
    "the act's first action to run on the worker",
    async () =>
      /fleet_actions_total\{action="press",outcome="ok"\} 1\n/.test(
        await (await fetch(worker.metricsUrl)).text(),
      ),
    10_000,
    20,
  );
  await killHard(worker);
  const failed = await running;

  assert.ok(failed.status >= 400, `the act answered ${failed.status}: ${JSON.stringify(failed.body)}`);
  assert.equal(failed.headers.get("x-charged-usd"), null, "no charge is reported");
  const afterwards = await accountView(key, accountId);
  const books = await ledgerOf(requestId);
  assert.equal(books.captured, 0, "nothing captured");
  assert.equal(books.refunded, books.held, "whatever was held is given back");
  // The act may find its session lost (its worker's heartbeats overdue: 410), which gives the session's
  // held idle tail back to the balance; or time out first (504). Either way nothing was charged.
  assert.equal(
    afterwards.balance + afterwards.held,
    before.balance + before.held,
    "nothing charged: the balance and what is held add up to what they did before the act",
  );
  if (failed.status === 410) assert.equal(failed.body.error.code, "session_lost");
  else assert.equal(afterwards.balance, before.balance, "the balance is as before the act");
  assert.ok(afterwards.addsUp, "the ledger adds up to the balance");
  const [row] = await pg.database.sql`select actions, charged_micros from sessions where id = ${id}`;
  assert.equal(Number(row?.actions), 0, "the session counts no action of it");
});

test("acts running at once on two sessions of one key are each charged exactly what ran", async () => {
  await spawnWorker();
  const { key, accountId } = await newKey(1_000_000);
  const sessions: Json[] = [];
  for (let i = 0; i < 2; i++) {
    const s = await call(key, "POST", "/web/v1/session", { url: `${site.url}/form` });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    sessions.push(s.body);
  }
  const username = (s: Json) => s.data.controls.find((c: Json) => c.name === "Username").ref;
  // One act each first, so the api knows both sessions: the acts below are paid from its balance lease.
  for (const s of sessions)
    assert.equal(
      (await call(key, "POST", "/web/v1/act", { sessionId: s.sessionId, actions: [{ press: "Tab" }] }))
        .status,
      200,
    );
  const before = await accountView(key, accountId);

  // Per session: acts of 2 actions that all run, and acts whose second action fails (a ref that is
  // on no page), so one action of two runs; all sent at once on both sessions.
  const acts = sessions.flatMap((s, si) =>
    Array.from({ length: 6 }, (_, i) => {
      const fails = i % 3 === 2;
      const requestId = `act-both-${si}-${i}-${Date.now()}`;
      const body = {
        sessionId: s.sessionId,
        actions: [
          { type: { ref: username(s), text: `user${si}${i}` } },
          fails ? { click: { ref: "e99999" } } : { press: "Tab" },
        ],
        formats: ["controls"],
      };
      return call(key, "POST", "/web/v1/act", body, requestId).then((r) => ({ r, requestId, fails }));
    }),
  );
  const done = await Promise.all(acts);

  const afterwards = await accountView(key, accountId);
  let charged = 0;
  for (const { r, requestId, fails } of done) {
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const ran = fails ? 1 : 2;
    assert.equal(r.body.actions.filter((a: Json) => a.status === "ok").length, ran);
    const books = await ledgerOf(requestId);
    assert.deepEqual(books.kinds, ["capture"], `${requestId}: one row, from the lease`);
    assert.equal(books.captured, ran * ACTION, `${requestId} captured what ran`);
    assert.equal(r.headers.get("x-charged-usd"), ran === 2 ? "$0.001" : "$0.0005");
    charged += ran * ACTION;
  }
  assert.equal(afterwards.balance, before.balance - charged, "the balance went down by what was charged");
  assert.ok(afterwards.addsUp, "the ledger adds up to the balance");
  assert.equal(afterwards.held, before.held, "nothing of the acts is still held (the sessions' tails are)");
  const [s] = await pg.database.sql`
    select coalesce(sum(actions), 0)::int as actions, coalesce(sum(charged_micros), 0)::bigint as charged
    from sessions where account_id = ${accountId}`;
  assert.equal(
    s?.actions,
    2 + done.reduce((a, d) => a + (d.fails ? 1 : 2), 0),
    "each session counts its actions",
  );
  for (const sess of sessions) await call(key, "DELETE", `/web/v1/session/${sess.sessionId}`);
});

test("an act on a session the api has acted on before, closed since: 410, nothing charged", async () => {
  await spawnWorker();
  const { key, accountId } = await newKey(1_000_000);
  const s = await call(key, "POST", "/web/v1/session", { url: `${site.url}/form` });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const id = s.body.sessionId;
  const first = await call(key, "POST", "/web/v1/act", { sessionId: id, actions: [{ press: "Tab" }] });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal((await call(key, "DELETE", `/web/v1/session/${id}`)).status, 200);
  const before = await accountView(key, accountId);

  const requestId = `act-closed-${Date.now()}`;
  const late = await call(
    key,
    "POST",
    "/web/v1/act",
    { sessionId: id, actions: [{ press: "Tab" }] },
    requestId,
  );
  assert.equal(late.status, 410, JSON.stringify(late.body));
  assert.equal(late.body.error.code, "session_closed");
  assert.equal(late.headers.get("x-charged-usd"), null);
  const after = await accountView(key, accountId);
  const books = await ledgerOf(requestId);
  assert.equal(books.captured, 0);
  assert.equal(books.refunded, books.held, "whatever was held is given back");
  assert.deepEqual(after, before, "the balance and the ledger are as before");
});

test("every minute of a session is charged once, whether its acts or its end bill it", async () => {
  await spawnWorker();
  const { key, accountId } = await newKey(1_000_000);
  const start = await accountView(key, accountId);
  const s = await call(key, "POST", "/web/v1/session", { url: `${site.url}/form` });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const id = s.body.sessionId;
  const acts = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const r = await call(key, "POST", "/web/v1/act", { sessionId: id, actions: [{ press: "Tab" }] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
  };
  await acts(2);
  // The session has been open for 2.5 minutes now: minutes 2 and 3 are due, at $0.004 each.
  await pg.database.sql`update sessions set opened_at = now() - interval '150 seconds' where id = ${id}`;
  await acts(3);
  assert.equal((await call(key, "DELETE", `/web/v1/session/${id}`)).status, 200);

  const [row] = await pg.database
    .sql`select charged_micros, billed_minutes, actions from sessions where id = ${id}`;
  assert.equal(Number(row?.billed_minutes), 3);
  assert.equal(Number(row?.actions), 5);
  const expected = 5_000 + 2 * 4_000 + 5 * ACTION;
  assert.equal(Number(row?.charged_micros), expected, "opening, two minutes and five actions");
  const end = await accountView(key, accountId);
  assert.equal(start.balance - end.balance, expected, "the balance went down by exactly that");
  assert.ok(end.addsUp, "the ledger adds up to the balance");
  assert.equal(end.held, 0, "nothing is left held once the session ended");
});

test("a page that hogs its thread after a click: the act is answered in time with what its action did, its formats named as timeouts", async () => {
  await spawnWorker();
  const { key } = await newKey(1_000_000);
  const s = await call(key, "POST", "/web/v1/session", {
    url: `${site.url}/busy-report?ms=40000`,
    formats: ["markdown"],
  });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const id = s.body.sessionId;
  const requestId = `act-busy-${Date.now()}`;
  // The click is handled at once; a moment later the page's script holds its thread for 40 s, longer
  // than the api waits for the worker (the budget plus 15 s).
  const act = await call(
    key,
    "POST",
    "/web/v1/act",
    { sessionId: id, actions: [{ click: { ref: "#build" } }] },
    requestId,
  );
  assert.equal(act.status, 200, JSON.stringify(act.body));
  assert.deepEqual(
    act.body.actions.map((a: Json) => a.status),
    ["ok"],
    `the click is reported as done: ${JSON.stringify(act.body.actions)}`,
  );
  assert.equal(act.body.errors.markdown?.code, "timeout", JSON.stringify(act.body.errors));
  assert.equal(act.body.data.markdown, undefined);
  assert.match(act.body.metadata.url, /\/busy-report/);
  assert.equal(act.headers.get("x-charged-usd"), "$0.0005", "the action that ran is charged");
  assert.equal((await ledgerOf(requestId)).captured, ACTION);
  // Whichever of the file's live workers holds the session counts it.
  let unrendered = 0;
  for (const w of workers.filter((w) => w.exitCode === null && w.signalCode === null)) {
    const m = /fleet_acts_unrendered_total (\d+)\n/.exec(await (await fetch(w.metricsUrl)).text());
    unrendered += Number(m?.[1] ?? 0);
  }
  assert.equal(unrendered, 1, "the worker counts the act it answered without its formats");
  assert.equal((await call(key, "DELETE", `/web/v1/session/${id}`)).status, 200, "the session closes");
});
