import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/** Money is integer micro-dollars: 1 = $0.000001 = one atomic unit of USDC (6 decimals). */
const micros = (name: string) => bigint(name, { mode: "number" });
const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    /** Spendable balance; holds are already taken out of it. */
    balanceMicros: micros("balance_micros").notNull().default(0),
    createdAt: at("created_at").notNull().defaultNow(),
  },
  (t) => [check("balance_not_negative", sql`${t.balanceMicros} >= 0`)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** The first characters of the key, shown in listings so a person can tell keys apart. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole key; the key itself is never stored. */
    hash: text("hash").notNull(),
    label: text("label"),
    createdAt: at("created_at").notNull().defaultNow(),
    revokedAt: at("revoked_at"),
    lastUsedAt: at("last_used_at"),
  },
  (t) => [uniqueIndex("api_keys_hash").on(t.hash), index("api_keys_account").on(t.accountId)],
);

/**
 * A hold reserves a call's quote out of the balance before the work; the call then captures what ran
 * and refunds the rest. An open hold whose call died is released by the reaper.
 */
export const holds = pgTable(
  "holds",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    route: text("route").notNull(),
    requestId: text("request_id"),
    amountMicros: micros("amount_micros").notNull(),
    capturedMicros: micros("captured_micros").notNull().default(0),
    refundedMicros: micros("refunded_micros").notNull().default(0),
    status: text("status", { enum: ["open", "closed"] })
      .notNull()
      .default("open"),
    createdAt: at("created_at").notNull().defaultNow(),
    expiresAt: at("expires_at").notNull(),
    closedAt: at("closed_at"),
  },
  (t) => [
    index("holds_open").on(t.status, t.expiresAt),
    check("hold_within_amount", sql`${t.capturedMicros} + ${t.refundedMicros} <= ${t.amountMicros}`),
  ],
);

/**
 * Every balance change is a row. `amountMicros` is the change to the spendable balance, `heldMicros` the
 * change to money held for calls in flight: a hold is (-q, +q), a capture (0, -c), a refund (+r, -r).
 * So the sum of amountMicros over an account is its balance, and the sum of heldMicros what is in flight.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    accountId: text("account_id").references(() => accounts.id),
    kind: text("kind", {
      enum: ["topup", "hold", "capture", "refund", "wallet_payment", "adjustment"],
    }).notNull(),
    amountMicros: micros("amount_micros").notNull(),
    heldMicros: micros("held_micros").notNull().default(0),
    balanceAfterMicros: micros("balance_after_micros"),
    holdId: text("hold_id"),
    route: text("route"),
    requestId: text("request_id"),
    /** Wallet payments: who paid, on which network, the transaction, and the authorization nonce. */
    payer: text("payer"),
    network: text("network"),
    reference: text("reference"),
    note: text("note"),
    /**
     * A call charged from a balance lease: its id, so that writing it again (a retried batch, or a
     * stopped replica's journal replayed) never charges it twice.
     */
    chargeId: text("charge_id"),
    createdAt: at("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("ledger_account_time").on(t.accountId, t.id),
    uniqueIndex("ledger_charge_id").on(t.chargeId).where(sql`charge_id is not null`),
  ],
);

/**
 * A wallet payment is reserved by its authorization nonce before the work runs, so a replayed signature
 * can never run work twice; the row is settled after the work, or deleted when the work failed. A row
 * left pending (the api died, or PostgreSQL failed, between the on-chain settlement and its record; or a
 * settlement's outcome was unknown) is resolved from the chain by the stale-claim sweep.
 */
export const walletPayments = pgTable(
  "wallet_payments",
  {
    id: text("id").primaryKey(),
    network: text("network").notNull(),
    asset: text("asset").notNull(),
    nonce: text("nonce").notNull(),
    payer: text("payer").notNull(),
    amountMicros: micros("amount_micros").notNull(),
    route: text("route").notNull(),
    requestId: text("request_id"),
    /** The x402 scheme: `exact` (an EIP-3009 nonce) or `upto` (a Permit2 nonce); null on rows written before it. */
    scheme: text("scheme", { enum: ["exact", "upto"] }),
    /** When the authorization can no longer be settled (its validBefore, or Permit2 deadline); null on older rows. */
    validBefore: at("valid_before"),
    status: text("status", { enum: ["pending", "settled"] })
      .notNull()
      .default("pending"),
    /** The settlement transaction; on a pending row, one broadcast whose outcome was unknown. */
    transaction: text("transaction"),
    createdAt: at("created_at").notNull().defaultNow(),
    settledAt: at("settled_at"),
  },
  (t) => [uniqueIndex("wallet_payments_nonce").on(t.network, t.asset, t.nonce)],
);

/** One row per priced call, whoever paid: the source of the usage view and of per-route metrics. */
export const usage = pgTable(
  "usage",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    accountId: text("account_id").references(() => accounts.id),
    payer: text("payer"),
    client: text("client"),
    route: text("route").notNull(),
    status: integer("status").notNull(),
    priceMicros: micros("price_micros").notNull().default(0),
    requestId: text("request_id"),
    ms: integer("ms"),
    createdAt: at("created_at").notNull().defaultNow(),
  },
  (t) => [index("usage_account_time").on(t.accountId, t.createdAt)],
);

/**
 * Keyless allowance: one counter per client and bucket (e.g. `scrape:2026-11-22`, `session:ever`), and
 * per counted member (`scrape-site:example.com:2026-11-22|<hash of the page>`).
 */
export const allowanceCounters = pgTable(
  "allowance_counters",
  {
    client: text("client").notNull(),
    bucket: text("bucket").notNull(),
    count: integer("count").notNull().default(0),
    updatedAt: at("updated_at").notNull().defaultNow(),
    /** When the counter stops mattering (the end of its UTC day) and is swept; null: never. */
    expiresAt: at("expires_at"),
  },
  (t) => [primaryKey({ columns: [t.client, t.bucket] }), index("allowance_counters_expiry").on(t.expiresAt)],
);

/** The shared render cache: one row per URL, format and every option that changes that format's output. */
export const cacheEntries = pgTable(
  "cache_entries",
  {
    key: text("key").primaryKey(),
    url: text("url").notNull(),
    format: text("format").notNull(),
    /** The format's JSON value as the scrape response carries it. */
    body: jsonb("body").notNull(),
    title: text("title"),
    bytes: integer("bytes").notNull(),
    renderedAt: at("rendered_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [index("cache_expires").on(t.expiresAt)],
);

/**
 * Saved browser state (cookies, localStorage, IndexedDB: Playwright's storage state), one per account and
 * name, sealed with AES-256-GCM (packages/profiles); only its size and the sites it holds are in clear.
 */
export const profiles = pgTable(
  "profiles",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    /** `<key id>.<iv>.<tag>.<ciphertext>`, base64url, bound to the account and name. */
    sealed: text("sealed").notNull(),
    /** Size of the storage state's JSON before sealing. */
    bytes: integer("bytes").notNull(),
    cookies: integer("cookies").notNull(),
    /** The sites the state holds something for: cookie domains and storage origins. */
    sites: jsonb("sites").$type<string[]>().notNull(),
    version: integer("version").notNull(),
    createdAt: at("created_at").notNull().defaultNow(),
    updatedAt: at("updated_at").notNull().defaultNow(),
    /** The session that saved it last. */
    savedBy: text("saved_by"),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.name] })],
);

/** Live and recent browser sessions (the session routes fill these rows). */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").references(() => accounts.id),
    payer: text("payer"),
    client: text("client"),
    workerId: text("worker_id"),
    url: text("url"),
    status: text("status", { enum: ["open", "closed", "expired", "lost"] }).notNull(),
    openedAt: at("opened_at").notNull().defaultNow(),
    lastActiveAt: at("last_active_at"),
    closedAt: at("closed_at"),
    closeReason: text("close_reason"),
    billedMinutes: integer("billed_minutes").notNull().default(1),
    chargedMicros: micros("charged_micros").notNull().default(0),
    actions: integer("actions").notNull().default(0),
    /** When the worker closes it unless it is used again (idle timeout, capped by the maximum lifetime). */
    expiresAt: at("expires_at"),
    /** A key-paid session's hold for the minutes after its last act, captured when it ends. */
    tailHoldId: text("tail_hold_id"),
    /** The profile the session loaded or saves (`profile.name`), when it names one. */
    profileName: text("profile_name"),
    /** Whether the session saves its profile when it ends (`profile.save`). */
    profileSave: boolean("profile_save").notNull().default(false),
    /** The profile's version the session last loaded or saved: a save over another tells it was overwritten. */
    profileVersion: integer("profile_version"),
    /** Where its session.closed event goes (the request's webhook), when it has one. */
    webhook: jsonb("webhook"),
    /** Its live view's mode; null: none (opened with liveView off). */
    liveView: text("live_view", { enum: ["view", "interactive"] }),
    /** When a recorded session's recording is deleted; null: not recorded. */
    recordingExpiresAt: at("recording_expires_at"),
    /** Its recording reached RECORDING_MAX_BYTES: what came after was not kept. */
    recordingTruncated: boolean("recording_truncated").notNull().default(false),
  },
  (t) => [
    index("sessions_account_time").on(t.accountId, t.openedAt, t.id),
    index("sessions_open_expiry").on(t.expiresAt).where(sql`status = 'open'`),
    index("sessions_recording_expiry").on(t.recordingExpiresAt).where(sql`recording_expires_at is not null`),
  ],
);

/**
 * The parts of a session's recording, in order: each a gzip member of newline-delimited rrweb events,
 * stored in the artifacts store under `key` (in the hour folder after the recording expires, so the
 * store's sweep deletes it with the hour; the rows go when the session's recording_expires_at passes).
 */
export const recordingParts = pgTable(
  "recording_parts",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    key: text("key").notNull(),
    bytes: integer("bytes").notNull(),
    events: integer("events").notNull(),
    fromAt: at("from_at").notNull(),
    toAt: at("to_at").notNull(),
    /** The session's last part: the recording is complete. */
    final: boolean("final").notNull().default(false),
    savedAt: at("saved_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.seq] })],
);

/**
 * A batch or crawl: an asynchronous job the jobs program drives page by page. Its hold reserves
 * `limit × pageMicros`; pages capture from it as they come out, and the rest goes back when it ends.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["crawl", "batch"] }).notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    status: text("status", { enum: ["queued", "running", "completed", "failed", "cancelled"] }).notNull(),
    /** The validated request, defaults applied. */
    request: jsonb("request").notNull(),
    requestId: text("request_id"),
    holdId: text("hold_id").notNull(),
    /** What one page that came out costs (its formats at the page price). */
    pageMicros: micros("page_micros").notNull(),
    pageLimit: integer("page_limit").notNull(),
    /** Pages taken into the job so far (never more than pageLimit). */
    total: integer("total").notNull().default(0),
    completed: integer("completed").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    chargedMicros: micros("charged_micros").notNull().default(0),
    /** robots.txt of the start URL's origin, once fetched (crawl only); "" when it has none. */
    robotsTxt: text("robots_txt"),
    /** The request's webhook (packages/webhooks' StoredWebhook: where its events go, and the job's status URL). */
    webhook: jsonb("webhook"),
    error: jsonb("error"),
    createdAt: at("created_at").notNull().defaultNow(),
    startedAt: at("started_at"),
    finishedAt: at("finished_at"),
    /** The job ends (with what it has) if it is still running then. */
    deadlineAt: at("deadline_at").notNull(),
    /** When the job and its results are deleted. */
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [
    index("jobs_account_time").on(t.accountId, t.createdAt),
    index("jobs_active").on(t.status).where(sql`status in ('queued', 'running')`),
    index("jobs_expiry").on(t.expiresAt),
  ],
);

/** One page of a job: discovered (crawl) or given (batch), dispatched to a browser, then its result. */
export const jobPages = pgTable(
  "job_pages",
  {
    /** Also the order of the results: batch order, or breadth-first discovery order. */
    id: bigserial("id", { mode: "number" }).primaryKey(),
    jobId: text("job_id")
      .notNull()
      .references(() => jobs.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** The normalized URL; a job takes each page once. */
    urlKey: text("url_key").notNull(),
    depth: integer("depth").notNull().default(0),
    status: text("status", { enum: ["queued", "dispatched", "completed", "failed", "cancelled"] })
      .notNull()
      .default("queued"),
    attempts: integer("attempts").notNull().default(0),
    /** The task now in flight for this page; a result for any other task id is stale. */
    taskId: text("task_id"),
    dispatchedAt: at("dispatched_at"),
    result: jsonb("result"),
    error: jsonb("error"),
    chargedMicros: micros("charged_micros").notNull().default(0),
    finishedAt: at("finished_at"),
  },
  (t) => [
    uniqueIndex("job_pages_url").on(t.jobId, t.urlKey),
    index("job_pages_job_status").on(t.jobId, t.status, t.id),
    index("job_pages_in_flight").on(t.dispatchedAt).where(sql`status = 'dispatched'`),
  ],
);

/** What callers tell us about results, prices or bugs (POST /web/v1/feedback). */
export const feedback = pgTable(
  "feedback",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").references(() => accounts.id),
    payer: text("payer"),
    client: text("client"),
    category: text("category").notNull(),
    message: text("message").notNull(),
    url: text("url"),
    requestId: text("request_id"),
    jobId: text("job_id"),
    sessionId: text("session_id"),
    createdAt: at("created_at").notNull().defaultNow(),
  },
  (t) => [index("feedback_time").on(t.createdAt)],
);

/**
 * An account's webhook signing secret, sealed like a profile (packages/profiles, bound to the account);
 * after a rotation the replaced one keeps signing beside it until `previousUntil`.
 */
export const webhookSecrets = pgTable("webhook_secrets", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  sealed: text("sealed").notNull(),
  createdAt: at("created_at").notNull().defaultNow(),
  previousSealed: text("previous_sealed"),
  previousCreatedAt: at("previous_created_at"),
  previousUntil: at("previous_until"),
});

/**
 * The webhook outbox: one row per event to deliver, written in the transaction that made the event (a page
 * recorded, a job ended), so no event is lost and none is made twice. Events of one stream (a job, a session)
 * go out one at a time in id order; a row waits while an earlier one of its stream is pending.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The webhook-id header: the receiver's key to dedupe by. */
    msgId: text("msg_id").notNull().unique(),
    accountId: text("account_id").notNull(),
    /** `job:<id>` or `session:<id>`: the unit of ordering. */
    stream: text("stream").notNull(),
    type: text("type").notNull(),
    url: text("url").notNull(),
    headers: jsonb("headers").$type<Record<string, string>>(),
    /** The body as sent (type, version, timestamp, data), serialized once so every attempt signs the same bytes. */
    body: text("body").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed", "stopped"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: at("next_attempt_at").notNull().defaultNow(),
    /** A deliverer holds the row until then; after, another may take it (the first one died). */
    lockedUntil: at("locked_until"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    lastAttemptAt: at("last_attempt_at"),
    createdAt: at("created_at").notNull().defaultNow(),
    deliveredAt: at("delivered_at"),
  },
  (t) => [
    index("webhook_events_due").on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index("webhook_events_stream").on(t.stream, t.id),
  ],
);

/** Every delivery attempt: what the receiver answered, or why none came. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    eventId: bigint("event_id", { mode: "number" })
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    at: at("at").notNull().defaultNow(),
    status: integer("status"),
    error: text("error"),
    ms: integer("ms").notNull(),
  },
  (t) => [index("webhook_attempts_event").on(t.eventId)],
);

/**
 * What the changes format compares the next render with: each account's last render of a URL (its markdown,
 * its json when asked, its HTTP status). One row per account and URL, replaced by each render.
 */
export const pageSnapshots = pgTable(
  "page_snapshots",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    url: text("url").notNull(),
    markdown: text("markdown"),
    json: jsonb("json"),
    statusCode: integer("status_code"),
    renderedAt: at("rendered_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.url] }), index("page_snapshots_time").on(t.renderedAt)],
);
