/**
 * Paid load for fault tests: keyed callers scrape without pause (rendered pages and cached ones) while a
 * fault runs, and afterwards the ledger is checked against what each answer said it charged.
 */
import assert from "node:assert/strict";
import { createAccount, getAccount, issueKey, reapExpiredHolds } from "@browserfleet/billing";
import type { Database } from "@browserfleet/db";

export interface Outcome {
  accountId: string;
  requestId: string;
  status: number;
  chargedMicros: number;
  /** A cached scrape (maxAge), answered without the bus; else a page rendered by a worker. */
  cached: boolean;
  /** What the call was, in a mixed load (a scrape when unset). */
  kind?: CallKind;
  /** The error's code (error.code of the JSON answer) when the call failed. */
  code?: string;
  /** The start of a failed call's answer, to tell in the report what answered. */
  detail?: string;
  started: number;
  ms: number;
}

let calls = 0;

/** The spec's prices, in micro-dollars: one rendered format of a page, and a session's minute past the first. */
const PRICES = { format: 1_000, sessionMinute: 4_000 } as const;

export type CallKind = "scrape" | "open" | "act" | "crawl" | "session tail" | "wallet scrape";

/** A mixed load besides the keyed scrapes: sessions with acts, and a crawl running through the fault. */
export interface LoadMix {
  /** Callers (each with an account of its own, made here) that open a session, act three times, close it. */
  sessionCallers?: number;
  /** A crawl of the fixture site's generated tree, of this many pages, started before the fault. */
  crawlPages?: number;
  /**
   * Wallet callers: `callers` of them scrape, paying each call with x402 from one wallet through `fetch`
   * (the official client, which answers each 402 with a payment and sends the call again). Their outcomes'
   * accountId is `wallet:<payer>`; check them with assertWalletReconciled.
   */
  wallet?: { fetch: typeof fetch; payer: string; callers: number };
}

/** What a mixed load did: every call's outcome, and what is checked once the fault is over. */
export interface MixedRun {
  outcomes: Outcome[];
  accounts: { key: string; accountId: string }[];
  sessions: Array<{ id: string; accountId: string; openRequestId: string; closed: boolean }>;
  crawl?: { jobId: string; accountId: string; key: string; outcome: Outcome; pages: number };
}

export interface PaidLoad {
  newAccounts(n: number): Promise<{ key: string; accountId: string }[]>;
  underLoad(
    api: { url: string },
    accounts: { key: string; accountId: string }[],
    fault: () => Promise<void>,
    tailMs?: number,
  ): Promise<Outcome[]>;
  /**
   * underLoad with sessions and a crawl besides the scrapes (`mix`), each on accounts of their own, which the
   * run lists; check it with settleMixed once the fault is over.
   */
  underMixedLoad(
    api: { url: string },
    accounts: { key: string; accountId: string }[],
    fault: () => Promise<void>,
    mix: LoadMix,
    tailMs?: number,
  ): Promise<MixedRun>;
  reapOpenHolds(): Promise<void>;
  assertReconciled(accounts: { accountId: string }[], outcomes: Outcome[], what: string): Promise<void>;
}

/** Paid load on the api at `api.url`, scraping `siteUrl`, with accounts of `balance` micro-dollars each in `db`. */
export function paidLoad(db: Database, siteUrl: string, balance = 10_000_000): PaidLoad {
  return { newAccounts, underLoad, underMixedLoad, reapOpenHolds, assertReconciled };

  async function newAccounts(n: number) {
    const out: { key: string; accountId: string }[] = [];
    for (let i = 0; i < n; i++) {
      const { accountId } = await createAccount(db.db, { balanceMicros: balance });
      const { key } = await issueKey(db.db, accountId, "faults");
      out.push({ key, accountId });
    }
    return out;
  }

  /**
   * Callers scraping without pause until `fault` has run and `tailMs` more passed: rendered pages (a fresh
   * URL each time) and cached ones (maxAge), each account in turn.
   */
  async function underLoad(
    api: { url: string },
    accounts: { key: string; accountId: string }[],
    fault: () => Promise<void>,
    tailMs = 1_500,
  ): Promise<Outcome[]> {
    return (await underMixedLoad(api, accounts, fault, {}, tailMs)).outcomes;
  }

  async function underMixedLoad(
    api: { url: string },
    accounts: { key: string; accountId: string }[],
    fault: () => Promise<void>,
    mix: LoadMix,
    tailMs = 1_500,
  ): Promise<MixedRun> {
    const outcomes: Outcome[] = [];
    const run: MixedRun = { outcomes, accounts: [...accounts], sessions: [] };
    if (mix.crawlPages) {
      const [crawler] = await newAccounts(1);
      const c = crawler as { key: string; accountId: string };
      const started = await paidCall(api.url, c, "/web/v1/crawl", {
        url: `${siteUrl}/crawl/gen/0?ms=100`,
        limit: mix.crawlPages,
      });
      assert.equal(started.outcome.status, 200, JSON.stringify(started.body));
      started.outcome.kind = "crawl";
      outcomes.push(started.outcome);
      run.crawl = { jobId: started.body.jobId, ...c, outcome: started.outcome, pages: mix.crawlPages };
      run.accounts.push(c);
    }
    const sessionAccounts = await newAccounts(mix.sessionCallers ?? 0);
    run.accounts.push(...sessionAccounts);
    let running = true;
    let n = 0;
    const caller = async (c: number) => {
      while (running) {
        const i = n++;
        const { key, accountId } = accounts[(c + i) % accounts.length] as { key: string; accountId: string };
        const cached = i % 2 === 0;
        const body = cached
          ? { url: `${siteUrl}/article`, formats: ["markdown"], maxAge: 600_000 }
          : { url: `${siteUrl}/article?n=${i}`, formats: ["markdown", "links"] };
        const { outcome } = await paidCall(api.url, { key, accountId }, "/web/v1/scrape", body, cached);
        outcomes.push(outcome);
        // As a client would: not at once again against a server that is not there.
        if (outcome.status === 0) await new Promise((r) => setTimeout(r, 100));
      }
    };
    // As an agent works: open a session (again after a 429: sessions need a free slot), then act on it in
    // turns (type a name, submit, read the page) until the load ends or the session is lost, then close it.
    const sessionCaller = async (who: { key: string; accountId: string }, opened1: () => void) => {
      const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
      while (running) {
        const opened = await paidCall(api.url, who, "/web/v1/session", { url: `${siteUrl}/form` });
        opened.outcome.kind = "open";
        outcomes.push(opened.outcome);
        if (opened.outcome.status !== 200) {
          await pause(opened.outcome.status === 429 ? 1_000 : 250);
          continue;
        }
        const session = {
          id: opened.body.sessionId as string,
          accountId: who.accountId,
          openRequestId: opened.outcome.requestId,
          closed: false,
        };
        run.sessions.push(session);
        opened1();
        const ref = (opened.body.data?.controls ?? []).find(
          (c: { role: string; name: string }) => c.role === "textbox" && c.name === "Username",
        )?.ref;
        // Type a name and submit it; then turns of opening the form again (reading it) and a short wait.
        const actFor = (turn: number) =>
          turn === 0
            ? { actions: [{ type: { ref, text: "ada" } }] }
            : turn === 1
              ? { actions: [{ press: "Enter" }] }
              : turn % 2 === 0
                ? { actions: [{ navigate: { url: `${siteUrl}/form` } }], formats: ["markdown"] }
                : { actions: [{ wait: { ms: 50 } }] };
        let over = false;
        for (let turn = 0; running && !over; turn++) {
          const r = await paidCall(api.url, who, "/web/v1/act", { sessionId: session.id, ...actFor(turn) });
          r.outcome.kind = "act";
          outcomes.push(r.outcome);
          // Lost with its worker (410), gone or refused: this session is over for the caller. The api away
          // or a busy moment (no answer, 5xx, 429): tried again on the same session.
          const status = r.outcome.status;
          if (status >= 400 && status < 500 && status !== 429) over = true;
          else if (status !== 200) await pause(250);
        }
        // Closed as a client would, asked again while the api is away (a minute at most).
        const until = Date.now() + 60_000;
        while (!session.closed && Date.now() < until) {
          const status = await fetch(`${api.url}/web/v1/session/${session.id}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${who.key}` },
            signal: AbortSignal.timeout(30_000),
          }).then(
            (res) => res.status,
            () => 0,
          );
          session.closed = status === 200 || status === 404 || status === 410;
          if (!session.closed) await pause(250);
        }
      }
    };
    const walletCaller = async (w: NonNullable<LoadMix["wallet"]>) => {
      while (running) {
        const i = n++;
        const started = performance.now();
        const requestId = `load-${process.pid}-${calls++}`;
        const base = { accountId: `wallet:${w.payer.toLowerCase()}`, requestId, cached: false, started };
        const outcome: Outcome = await w
          .fetch(`${api.url}/web/v1/scrape`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-request-id": requestId },
            body: JSON.stringify({ url: `${siteUrl}/article?wallet=${i}`, formats: ["markdown"] }),
            signal: AbortSignal.timeout(60_000),
          })
          .then(async (res) => {
            const text = await res.text();
            let code: string | undefined;
            try {
              code = JSON.parse(text)?.error?.code;
            } catch {}
            return {
              ...base,
              status: res.status,
              // `exact` settles the whole quote: one rendered format. The settlement's receipt says it moved.
              chargedMicros: res.status === 200 && res.headers.get("payment-response") ? PRICES.format : 0,
              code,
              detail: res.status === 200 ? undefined : text.slice(0, 160),
              ms: performance.now() - started,
            };
          })
          .catch(() => ({ ...base, status: 0, chargedMicros: 0, ms: performance.now() - started }));
        outcome.kind = "wallet scrape";
        outcomes.push(outcome);
        if (outcome.status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
    };
    // The sessions first, as agents holding a slot each while the scrapes come and go: a session needs a
    // free slot to open (else 429), which a full queue of scrapes would rarely leave.
    const opening: Promise<void>[] = [];
    const sessionCallers = sessionAccounts.map((a) => {
      let opened1 = () => {};
      opening.push(new Promise<void>((r) => (opened1 = r)));
      return sessionCaller(a, opened1);
    });
    await Promise.race([Promise.all(opening), new Promise((r) => setTimeout(r, 60_000))]);
    const callers = [
      ...sessionCallers,
      ...Array.from({ length: 6 }, (_, c) => caller(c)),
      ...(mix.wallet ? Array.from({ length: mix.wallet.callers }, () => walletCaller(mix.wallet!)) : []),
    ];
    // Some answered calls before the fault, so it strikes with calls and leases in flight.
    while (outcomes.length < 12) await new Promise((r) => setTimeout(r, 50));
    await fault();
    await new Promise((r) => setTimeout(r, tailMs));
    running = false;
    await Promise.all(callers);
    return run;
  }

  /**
   * A hold whose call failed in the outage stays open until its TTL, when the reaper refunds it: reaped
   * here as of a second after the last one expires.
   */
  async function reapOpenHolds() {
    const [last] = await db.sql`select max(expires_at) as at from holds where status = 'open'`;
    if (last?.at) await reapExpiredHolds(db.db, new Date(new Date(last.at).getTime() + 1_000));
  }

  async function assertReconciled(accounts: { accountId: string }[], outcomes: Outcome[], what: string) {
    await reapOpenHolds();
    const open = await db.sql`select count(*)::int as n from holds where status = 'open'`;
    assert.equal(open[0]?.n, 0, "no hold is left open past its TTL");
    for (const { accountId } of accounts) {
      const charged = outcomes
        .filter((o) => o.accountId === accountId)
        .reduce((s, o) => s + o.chargedMicros, 0);
      const left = (await getAccount(db.db, accountId))?.balanceMicros;
      assert.equal(
        balance - (left ?? 0),
        charged,
        `${what}: the account paid exactly what its answers were charged`,
      );
      const [sum] = await db.sql`
      select coalesce(sum(amount_micros), 0)::bigint as amount, coalesce(sum(held_micros), 0)::bigint as held
      from ledger_entries where account_id = ${accountId}`;
      assert.equal(Number(sum?.amount), left, `${what}: the ledger sums to the balance`);
      assert.equal(Number(sum?.held), 0, `${what}: nothing is held`);
    }
  }
}

/**
 * One paid POST as a caller makes it, and what it came to: its status, its error code, and the charge its
 * answer reported (X-Charged-Usd of a 200). A call that got no answer has status 0.
 */
export async function paidCall(
  apiUrl: string,
  caller: { key: string; accountId: string },
  path: string,
  body: unknown,
  cached = false,
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
): Promise<{ outcome: Outcome; body?: any }> {
  const started = performance.now();
  const requestId = `load-${process.pid}-${calls++}`;
  const base = { accountId: caller.accountId, requestId, cached, started };
  try {
    const res = await fetch(`${apiUrl}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${caller.key}`,
        "x-request-id": requestId,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    const charged = res.headers.get("x-charged-usd");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {}
    return {
      outcome: {
        ...base,
        status: res.status,
        chargedMicros: res.status === 200 && charged ? Math.round(Number(charged.replace("$", "")) * 1e6) : 0,
        code:
          res.status === 200 ? undefined : (json as { error?: { code?: string } } | undefined)?.error?.code,
        // An answer that is not ours (no JSON error) is told by its headers: which server sent it.
        detail:
          res.status === 200
            ? undefined
            : json === undefined
              ? `not JSON, headers ${[...res.headers].map(([k, v]) => `${k}=${v}`).join("; ")}: ${text.slice(0, 160)}`
              : `${res.headers.get("content-type")}: ${text.slice(0, 160)}`,
        ms: performance.now() - started,
      },
      body: json,
    };
  } catch {
    return { outcome: { ...base, status: 0, chargedMicros: 0, ms: performance.now() - started } };
  }
}

/** Prints the error rate and p99 latency of a run with the test, and checks some calls were answered. */
export function report(t: { diagnostic(s: string): void }, what: string, outcomes: Outcome[]) {
  const failed = outcomes.filter((o) => o.status !== 200);
  const ms = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const p99 = ms[Math.min(ms.length - 1, Math.floor(0.99 * ms.length))] ?? 0;
  const counts = new Map<string, number>();
  for (const o of failed) {
    const k = o.code ? `${o.status} ${o.code}` : String(o.status);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const statuses = [...counts].map(([k, n]) => `${n} x ${k}`).join(", ");
  // What answered each kind of failure, once.
  const seen = new Set<string>();
  for (const o of failed) {
    const k = `${o.status} ${o.code ?? ""}`.trim();
    if (seen.has(k) || !o.detail) continue;
    seen.add(k);
    t.diagnostic(`${what}: ${k} answered ${o.detail}`);
  }
  const kinds = new Map<string, { n: number; failed: number }>();
  for (const o of outcomes) {
    const k = kinds.get(o.kind ?? "scrape") ?? { n: 0, failed: 0 };
    k.n++;
    if (o.status !== 200) k.failed++;
    kinds.set(o.kind ?? "scrape", k);
  }
  const byKind = [...kinds].map(([k, v]) => `${k} ${v.n - v.failed}/${v.n}`).join(", ");
  t.diagnostic(
    `${what}: ${outcomes.length} calls (answered by kind: ${byKind}), error rate ${(failed.length / outcomes.length).toFixed(3)} (${statuses || "none"}), p99 ${p99.toFixed(0)} ms`,
  );
  assert.ok(
    outcomes.some((o) => o.status === 200),
    `${what}: calls were answered`,
  );
}

/** What the ledger charged each call, by its request id (a hold's capture, a lease's capture or adjustment, less refunds). */
export async function chargedByRequest(db: Database, accountIds: string[]): Promise<Map<string, number>> {
  const rows = await db.sql<{ request_id: string; charged: string }[]>`
    select request_id, (-sum(amount_micros + held_micros))::bigint::text as charged
    from ledger_entries where account_id = any(${accountIds}) and request_id is not null
    group by request_id`;
  return new Map(rows.map((r) => [r.request_id, Number(r.charged)]));
}

/**
 * The ledger checked while the api still runs (a cluster's, whose leases and holds stay open): each
 * account's entries sum to its balance, what it lost is what its answers were charged plus what is still
 * held for calls not settled yet, and no hold is open past its TTL (the reaper's interval allowed). Asked
 * again until lease charges written behind have landed.
 */
export async function assertReconciledLive(
  db: Database,
  accounts: { accountId: string }[],
  outcomes: Outcome[],
  what: string,
  balance = 10_000_000,
): Promise<void> {
  const check = async () => {
    for (const { accountId } of accounts) {
      const charged = outcomes
        .filter((o) => o.accountId === accountId)
        .reduce((s, o) => s + o.chargedMicros, 0);
      const [acct] = await db.sql<{ balance: string }[]>`
        select balance_micros::text as balance from accounts where id = ${accountId}`;
      const [sum] = await db.sql<{ amount: string; held: string }[]>`
        select coalesce(sum(amount_micros), 0)::text as amount, coalesce(sum(held_micros), 0)::text as held
        from ledger_entries where account_id = ${accountId}`;
      const left = Number(acct?.balance);
      assert.equal(Number(sum?.amount), left, `${what}: the ledger sums to the balance`);
      // The reaper gives back what a hold still has once its TTL is over (every minute): none is later.
      const [overdue] = await db.sql<{ n: string }[]>`
        select count(*)::text as n from holds
        where account_id = ${accountId} and status = 'open' and expires_at < now() - interval '90 seconds'`;
      assert.equal(Number(overdue?.n), 0, `${what}: no hold is left open past its TTL`);
      assert.equal(
        balance - left - Number(sum?.held),
        charged,
        `${what}: the account paid exactly what its answers were charged (besides what is still held)`,
      );
    }
    return true;
  };
  await holdsWithin(check, 60_000, 1_000);
}

/**
 * What a mixed run leaves to check once its fault is over, before the ledger is reconciled: the crawl
 * completes with every page once and charges what its status says (one format per page), in the ledger
 * too; every session of the run is closed (those the fault kept open are closed now), and what a
 * session's end charged for its idle minutes is taken into what its account paid, once checked against the
 * minutes the session was open. Returns the run's outcomes with those charges in.
 */
export async function settleMixed(db: Database, api: { url: string }, run: MixedRun): Promise<Outcome[]> {
  const extra: Outcome[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered
  const get = async (key: string, path: string): Promise<any> => {
    const res = await fetch(`${api.url}${path}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  };
  if (run.crawl) {
    const { jobId, key, outcome, pages } = run.crawl;
    const until = Date.now() + 300_000;
    let status: { status: number; body: { status: string } } | undefined;
    for (;;) {
      status = await get(key, `/web/v1/crawl/${jobId}?limit=1`).catch(() => undefined);
      if (status?.status === 200 && !["queued", "running"].includes(status.body.status)) break;
      if (Date.now() >= until)
        assert.fail(`the crawl to end: ${String(JSON.stringify(status?.body)).slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const urls: string[] = [];
    let cursor = "";
    // biome-ignore lint/suspicious/noExplicitAny: the job's status answer
    let last: any;
    do {
      last = (await get(key, `/web/v1/crawl/${jobId}?limit=200${cursor ? `&cursor=${cursor}` : ""}`)).body;
      urls.push(...last.data.map((p: { url: string }) => p.url));
      cursor = last.next ? encodeURIComponent(last.next) : "";
    } while (cursor);
    assert.equal(last.status, "completed", `the crawl: ${JSON.stringify({ ...last, data: undefined })}`);
    assert.equal(last.total, pages, "the crawl took every page of its limit");
    assert.equal(urls.length, pages, "no page of the crawl lost");
    assert.equal(new Set(urls).size, pages, "no page of the crawl recorded twice");
    assert.equal(last.completed + last.failed, pages);
    assert.equal(last.charged.micros, last.completed * PRICES.format, "one format's price per page done");
    outcome.chargedMicros = last.charged.micros;
    const byRequest = await chargedByRequest(db, [run.crawl.accountId]);
    assert.equal(
      byRequest.get(outcome.requestId),
      last.charged.micros,
      "the ledger charged the crawl once per page",
    );
  }
  for (const s of run.sessions.filter((x) => !x.closed)) {
    const who = run.accounts.find((a) => a.accountId === s.accountId);
    const res = await fetch(`${api.url}/web/v1/session/${s.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${who?.key}` },
      signal: AbortSignal.timeout(30_000),
    });
    assert.ok([200, 404, 410].includes(res.status), `session ${s.id} closed after the fault: ${res.status}`);
    s.closed = true;
  }
  if (run.sessions.length) {
    const ids = run.sessions.map((s) => s.id);
    // The end of each session charges its idle tail in a moment after the close's answer.
    const rows = await (async () => {
      const until = Date.now() + 60_000;
      for (;;) {
        const r = await db.sql<
          { id: string; status: string; opened: Date; ended: Date; tail: string | null; billed: number }[]
        >`
          select id, status, opened_at as opened,
                 least(coalesce(closed_at, last_active_at, now()), coalesce(expires_at, now())) as ended,
                 tail_hold_id as tail, billed_minutes as billed
          from sessions where id = any(${ids})`;
        if (r.every((x) => x.status !== "open" && x.tail === null) || Date.now() > until) return r;
        await new Promise((res) => setTimeout(res, 1_000));
      }
    })();
    assert.equal(rows.length, ids.length, "every session of the load has its row");
    for (const r of rows) assert.notEqual(r.status, "open", `session ${r.id} ended`);
    const byRequest = await chargedByRequest(
      db,
      run.accounts.map((a) => a.accountId),
    );
    for (const s of run.sessions) {
      const row = rows.find((r) => r.id === s.id);
      const open = run.outcomes.find((o) => o.requestId === s.openRequestId);
      const tail = (byRequest.get(s.openRequestId) ?? 0) - (open?.chargedMicros ?? 0);
      const minutesOpen = Math.max(
        1,
        Math.ceil((new Date(row?.ended ?? 0).getTime() - new Date(row?.opened ?? 0).getTime()) / 60_000),
      );
      assert.ok(
        tail >= 0 && tail % PRICES.sessionMinute === 0 && tail / PRICES.sessionMinute <= minutesOpen - 1,
        `session ${s.id}: its end charged ${tail} micros for idle minutes, open ${minutesOpen} started minutes`,
      );
      if (tail > 0)
        extra.push({
          accountId: s.accountId,
          // The open's own request: its tail hold, and the charge from it, are booked under it.
          requestId: s.openRequestId,
          status: 200,
          chargedMicros: tail,
          cached: false,
          kind: "session tail",
          started: 0,
          ms: 0,
        });
    }
  }
  return [...run.outcomes, ...extra];
}

/**
 * A wallet's payments in a run reconciled: what left the payer on chain since `startMicros` (its balance
 * when the run began) is exactly what the
 * ledger's wallet_payment rows of that payer record (every settlement on chain recorded once, none
 * recorded that did not move), and exactly what the load's answers said was settled, besides calls that got
 * no answer (`cut`: cut off by the fault), whose payment the ledger may hold. Asked again for a while: a
 * settlement whose record the fault cut off is recovered from the chain by the api's sweep.
 */
export async function assertWalletReconciled(
  db: Database,
  wallet: { payer: string; balance(): Promise<bigint>; startMicros: bigint },
  outcomes: Outcome[],
  what: string,
  waitMs = 180_000,
): Promise<void> {
  const payer = wallet.payer.toLowerCase();
  const mine = outcomes.filter((o) => o.accountId === `wallet:${payer}`);
  const check = async () => {
    const moved = Number(wallet.startMicros - (await wallet.balance()));
    // This run's payments: those of its calls (a wallet's earlier runs are reconciled already).
    const rows = await db.sql<{ request_id: string | null; amount: string }[]>`
      select request_id, amount_micros::text as amount from ledger_entries
      where kind = 'wallet_payment' and lower(payer) = ${payer} and request_id = any(${mine.map((o) => o.requestId)})`;
    const recorded = rows.reduce((s, r) => s + Number(r.amount), 0);
    assert.equal(
      recorded,
      moved,
      `${what}: every payment that left the wallet on chain is in the ledger, once`,
    );
    const byRequest = new Map(rows.map((r) => [r.request_id, Number(r.amount)]));
    for (const o of mine)
      if (o.status === 0) o.chargedMicros = byRequest.get(o.requestId) ?? 0;
      else
        assert.equal(
          byRequest.get(o.requestId) ?? 0,
          o.chargedMicros,
          `${what}: ${o.requestId} (${o.status})`,
        );
    const said = mine.reduce((s, o) => s + o.chargedMicros, 0);
    assert.equal(said, recorded, `${what}: the wallet paid exactly what its answers were charged`);
    const [pending] = await db.sql<{ n: string }[]>`
      select count(*)::text as n from wallet_payments where lower(payer) = ${payer} and status = 'pending'`;
    assert.equal(Number(pending?.n), 0, `${what}: no wallet claim is left pending`);
  };
  await holdsWithin(check, waitMs, 2_000);
}

/**
 * Runs `check` (assertions) again every `everyMs` until it passes; once `ms` have run out, its last
 * failure is thrown. For what is written behind a call's answer (lease charges, claims the sweep records).
 */
async function holdsWithin(check: () => Promise<unknown>, ms: number, everyMs: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}
