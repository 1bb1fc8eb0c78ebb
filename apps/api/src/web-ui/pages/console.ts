/**
 * The console (runs in the browser, bundled by scripts/build-web-ui.ts): an account's balance, usage,
 * transactions, sessions (with their live view or recording), jobs and the price table, read from the public /web/v1
 * routes with the API key the person signs in with. The key is kept in this tab only (sessionStorage)
 * and sent in the Authorization header, never in a URL. Everything shown is set as text.
 */
import { html, render } from "htm/preact";
import { useCallback, useEffect, useState } from "preact/hooks";

// biome-ignore lint/suspicious/noExplicitAny: the console shows what the routes answer, as they document it
type Json = any;

const KEY_STORE = "browserfleet-key";
const REFRESH_MS = 5000;
const ACTIVE_REFRESH_MS = 1500;
const USAGE_DAYS = 14;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A session's recording: its replay link while it lasts, or what became of it. */
function recordingLink(r: Json | undefined) {
  if (!r) return "";
  if (!r.url) return `recording ${r.status}`;
  const what = r.status === "recording" ? "Replay so far" : "Replay";
  return html`<a href=${r.url} target="_blank" rel="noopener noreferrer">${what}</a>${
    r.status === "empty" ? " (empty)" : ""
  }`;
}

async function get(key: string, path: string): Promise<Json> {
  const res = await fetch(path, {
    headers: { authorization: `Bearer ${key}`, accept: "application/json" },
    credentials: "omit",
    cache: "no-store",
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new HttpError(res.status, body?.error?.message ?? `${path} answered ${res.status}`);
  return body;
}

/** The routes this page reads, as the api gave them (from their operations). */
interface Routes {
  account: string;
  usage: string;
  transactions: string;
  sessions: string;
  jobs: string;
  prices: string;
}
let R: Routes;

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "");

function SignIn({ onKey }: { onKey: (k: string) => void }) {
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const key = String(new FormData(e.currentTarget as HTMLFormElement).get("key") ?? "").trim();
    if (!key) return setProblem("Enter an API key.");
    setBusy(true);
    try {
      await get(key, R.account);
      onKey(key);
    } catch (err) {
      setProblem(err instanceof HttpError && err.status === 401 ? "This key is not valid." : String(err));
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <h1>Browserfleet console</h1>
    <form onSubmit=${submit}>
      <label for="key">API key</label>
      <input id="key" name="key" type="password" autocomplete="off" spellcheck="false" placeholder="bf_live_…" />
      <button type="submit" disabled=${busy}>Sign in</button>
      ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ""}
      <p class="hint">The key stays in this tab: closing it signs you out.</p>
    </form>
  </main>`;
}

/** Spend per day over the last days, as bars; the same figures in a table for screen readers. */
function UsageChart({ usage }: { usage: Json }) {
  const days: string[] = [];
  for (let i = USAGE_DAYS - 1; i >= 0; i--)
    days.push(new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10));
  const spent = new Map<string, number>();
  const calls = new Map<string, number>();
  for (const u of usage.usage as Json[]) {
    spent.set(u.day, (spent.get(u.day) ?? 0) + u.spent.micros);
    calls.set(u.day, (calls.get(u.day) ?? 0) + u.calls);
  }
  const max = Math.max(1, ...days.map((d) => spent.get(d) ?? 0));
  const W = 28;
  const H = 120;
  return html`<figure>
    <svg
      viewBox=${`0 0 ${days.length * W} ${H + 20}`}
      role="img"
      aria-label=${`Spend per day over the last ${USAGE_DAYS} days: ${usage.total.spent.usd} in all`}
      class="chart"
    >
      ${days.map((d, i) => {
        const h = Math.round(((spent.get(d) ?? 0) / max) * H);
        return html`<g>
          <rect x=${i * W + 4} y=${H - h} width=${W - 8} height=${Math.max(h, 1)} class="bar"><title>${d}: $${((spent.get(d) ?? 0) / 1e6).toFixed(4)}, ${calls.get(d) ?? 0} calls</title></rect>
          <text x=${i * W + W / 2} y=${H + 14} class="tick">${d.slice(8)}</text>
        </g>`;
      })}
    </svg>
    <figcaption>
      ${usage.total.calls} calls, ${usage.total.spent.usd} over the last ${usage.days} days.
    </figcaption>
  </figure>`;
}

function Table({ head, rows, empty }: { head: string[]; rows: unknown[][]; empty: string }) {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="scroll"><table>
    <thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

function Dashboard({ apiKey, onSignOut }: { apiKey: string; onSignOut: () => void }) {
  const [data, setData] = useState<Json>();
  const [prices, setPrices] = useState<Json>();
  const [problem, setProblem] = useState("");
  const load = useCallback(async () => {
    try {
      const [account, usage, transactions, sessions, jobs] = await Promise.all([
        get(apiKey, R.account),
        get(apiKey, `${R.usage}?days=${USAGE_DAYS}`),
        get(apiKey, `${R.transactions}?limit=20`),
        get(apiKey, `${R.sessions}?limit=20`),
        get(apiKey, `${R.jobs}?limit=20`),
      ]);
      setData({ account, usage, transactions, sessions, jobs });
      setProblem("");
      return (jobs.jobs as Json[]).some((j) => j.status === "queued" || j.status === "running");
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) onSignOut();
      else setProblem(`Could not refresh: ${(err as Error).message}`);
      return false;
    }
  }, [apiKey, onSignOut]);
  useEffect(() => {
    get(apiKey, R.prices).then(setPrices, () => {});
  }, [apiKey]);
  // Again and again, sooner while a job runs (its progress is what a person watches then).
  useEffect(() => {
    let stopped = false;
    let timer = 0;
    const again = async () => {
      const active = await load();
      if (!stopped) timer = window.setTimeout(again, active ? ACTIVE_REFRESH_MS : REFRESH_MS);
    };
    void again();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [load]);

  if (!data) return html`<main><p role="status">${problem || "Loading…"}</p></main>`;
  const { account, usage, transactions, sessions, jobs } = data;
  return html`
    <header>
      <h1>Browserfleet console</h1>
      <p>Account <code>${account.account.id}</code>${account.account.name ? ` (${account.account.name})` : ""}, key <code>${account.key.prefix}…</code></p>
      <button type="button" onClick=${() => void load()}>Refresh</button>
      <button type="button" onClick=${onSignOut}>Sign out</button>
    </header>
    <main>
      ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ""}
      <section aria-labelledby="h-balance">
        <h2 id="h-balance">Balance</h2>
        <p class="balance"><strong data-balance>${account.balance.usd}</strong> available, ${account.held.usd} held for calls in flight</p>
        <p class="topup">${account.topUp}</p>
      </section>
      <section aria-labelledby="h-usage">
        <h2 id="h-usage">Usage</h2>
        <${UsageChart} usage=${usage} />
      </section>
      <section aria-labelledby="h-sessions">
        <h2 id="h-sessions">Sessions</h2>
        <${Table}
          head=${["Session", "Status", "Page", "Opened", "Actions", "Charged", "Watch or replay"]}
          empty="No session yet."
          rows=${(sessions.sessions as Json[]).map((s) => [
            html`<code>${s.sessionId}</code>`,
            s.status,
            s.url ?? "(raw html)",
            when(s.openedAt),
            s.actions,
            s.charged.usd,
            html`${
              s.liveViewUrl
                ? html`<a href=${s.liveViewUrl} target="_blank" rel="noopener noreferrer">Watch</a> `
                : ""
            }${recordingLink(s.recording)}`,
          ])}
        />
      </section>
      <section aria-labelledby="h-jobs">
        <h2 id="h-jobs">Batch and crawl jobs</h2>
        <${Table}
          head=${["Job", "Kind", "Start", "Status", "Progress", "Charged", "Created"]}
          empty="No job yet."
          rows=${(jobs.jobs as Json[]).map((j) => {
            const done = j.completed + j.failed;
            const of = Math.max(j.total, done);
            return [
              html`<code>${j.jobId}</code>`,
              j.kind,
              j.url ?? "",
              j.status,
              html`<progress max=${Math.max(of, 1)} value=${done} aria-label=${`${j.jobId}: ${done} of ${of} pages`}></progress>
                <span class="progress" data-job=${j.jobId}>${done} of ${of} pages${j.failed ? `, ${j.failed} failed` : ""}</span>`,
              j.charged.usd,
              when(j.createdAt),
            ];
          })}
        />
      </section>
      <section aria-labelledby="h-transactions">
        <h2 id="h-transactions">Transactions</h2>
        <${Table}
          head=${["When", "Kind", "Route", "Amount", "Held", "Balance after", "Note"]}
          empty="No transaction yet."
          rows=${(transactions.transactions as Json[]).map((t) => [
            when(t.at),
            t.kind,
            t.route ?? "",
            t.amount.usd,
            t.held.usd,
            t.balanceAfter?.usd ?? "",
            t.note ?? "",
          ])}
        />
      </section>
      <section aria-labelledby="h-prices">
        <h2 id="h-prices">Prices</h2>
        ${
          prices
            ? html`<${Table}
                head=${["Operation", "Price", "The whole rule"]}
                empty="No priced operation."
                rows=${(prices.operations as Json[]).map((p) => [html`<code>POST ${p.path}</code>`, p.price, p.rule])}
              />`
            : html`<p class="empty">Loading…</p>`
        }
      </section>
    </main>
  `;
}

function Console() {
  const [apiKey, setKey] = useState(() => sessionStorage.getItem(KEY_STORE) ?? "");
  const signIn = (k: string) => {
    sessionStorage.setItem(KEY_STORE, k);
    setKey(k);
  };
  const signOut = useCallback(() => {
    sessionStorage.removeItem(KEY_STORE);
    setKey("");
  }, []);
  return apiKey
    ? html`<${Dashboard} apiKey=${apiKey} onSignOut=${signOut} />`
    : html`<${SignIn} onKey=${signIn} />`;
}

const root = document.getElementById("app");
if (root) {
  R = JSON.parse(root.dataset.routes ?? "{}") as Routes;
  render(html`<${Console} />`, root);
}
