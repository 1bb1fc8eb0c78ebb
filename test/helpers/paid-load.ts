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
  /** The error's code (error.code of the JSON answer) when the call failed. */
  code?: string;
  /** The start of a failed call's answer, to tell in the report what answered. */
  detail?: string;
  started: number;
  ms: number;
}

let calls = 0;

export interface PaidLoad {
  newAccounts(n: number): Promise<{ key: string; accountId: string }[]>;
  underLoad(
    api: { url: string },
    accounts: { key: string; accountId: string }[],
    fault: () => Promise<void>,
    tailMs?: number,
  ): Promise<Outcome[]>;
  reapOpenHolds(): Promise<void>;
  assertReconciled(accounts: { accountId: string }[], outcomes: Outcome[], what: string): Promise<void>;
}

/** Paid load on the api at `api.url`, scraping `siteUrl`, with accounts of `balance` micro-dollars each in `db`. */
export function paidLoad(db: Database, siteUrl: string, balance = 10_000_000): PaidLoad {
  return { newAccounts, underLoad, reapOpenHolds, assertReconciled };

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
    const outcomes: Outcome[] = [];
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
    const callers = Array.from({ length: 6 }, (_, c) => caller(c));
    // Some answered calls before the fault, so it strikes with calls and leases in flight.
    while (outcomes.length < 12) await new Promise((r) => setTimeout(r, 50));
    await fault();
    await new Promise((r) => setTimeout(r, tailMs));
    running = false;
    await Promise.all(callers);
    return outcomes;
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
  t.diagnostic(
    `${what}: ${outcomes.length} calls, error rate ${(failed.length / outcomes.length).toFixed(3)} (${statuses || "none"}), p99 ${p99.toFixed(0)} ms`,
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
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}
