import { z } from "zod";
import { egressPoolsSetting } from "./egress-pools.ts";

const intFrom = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/** Every setting comes from the environment; this schema is its only description (README mirrors it). */
export const configSchema = z
  .object({
    PORT: intFrom(8080),
    HOST: z.string().default("0.0.0.0"),
    NATS_URL: z.string().optional(),
    /**
     * Servers of the NATS cluster that keep a copy of each work stream (tasks, job results, the workers
     * bucket): 3 on a 3-server cluster, so losing one server loses no task; 1 on a single server.
     */
    NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
    DATA_DIR: z.string().default(".data"),
    /** `npm start`: how long a stop (Ctrl-C, SIGTERM) may take before what still runs is killed. */
    SHUTDOWN_TIMEOUT_MS: intFrom(15_000, 1000),
    /**
     * Browser slots (tasks at once) per worker. Unset: as many as the container's memory limit holds
     * (BROWSER_BASE_MEMORY_MB, then BROWSER_SLOT_MEMORY_MB each) and its CPU limit keeps busy (half a CPU
     * each), the host's where there is no limit. Set: taken as it is, unless the memory limit cannot hold it.
     */
    BROWSER_SLOTS: z.coerce.number().int().min(1).optional(),
    BROWSER_BASE_MEMORY_MB: intFrom(512, 64),
    BROWSER_SLOT_MEMORY_MB: intFrom(384, 32),
    /**
     * A worker whose working set reaches this share of its memory limit takes no new task (live sessions go
     * on) until it is back 10 points below, rather than be OOM-killed mid-task. 100: never stops.
     */
    BROWSER_MEMORY_HIGH_PERCENT: z.coerce.number().int().min(20).max(100).default(85),
    BROWSER_METRICS_PORT: intFrom(9464),
    /** Keep a fresh context (with a blank page) ready in each free slot, for scrapes with default context options. */
    BROWSER_WARM_CONTEXTS: z.enum(["on", "off"]).default("on"),
    /**
     * Chromium's sandbox (namespaces and seccomp for every renderer): auto uses it wherever the machine
     * lets an unprivileged process make namespaces, on refuses to start without it, off never uses it.
     */
    BROWSER_SANDBOX: z.enum(["auto", "on", "off"]).default("auto"),
    /** A worker running as root runs Chromium as this unprivileged user (default nobody): Chromium refuses its sandbox as root. */
    BROWSER_SANDBOX_USER: z.string().min(1).optional(),
    /** Replace the browser with a fresh one after this many tasks (0: never); nothing in flight fails. */
    BROWSER_RECYCLE_TASKS: intFrom(2000),
    /** Replace the browser when its processes' PSS passes this many MiB (0: never); read every 5 s. */
    BROWSER_RECYCLE_PSS_MB: intFrom(1536),
    TASK_QUEUE_MAX: intFrom(1000, 1),
    TASK_ACK_WAIT_MS: intFrom(60_000, 1000),
    SCRAPE_TIMEOUT_MS: intFrom(90_000, 1000),
    /** Live sessions close after this long without an act, and at this age whatever happens. */
    SESSION_IDLE_TIMEOUT_MS: intFrom(300_000, 500),
    SESSION_MAX_LIFETIME_MS: intFrom(3_600_000, 1000),
    /** How long a session open waits for a free browser slot before it answers 429 no_capacity. */
    SESSION_START_WITHIN_MS: intFrom(3_000, 200),
    /** The most one act call may take, all its actions and the formats after them. */
    ACT_TIMEOUT_MS: intFrom(120_000, 1000),
    MAX_BODY_BYTES: intFrom(10 * 1024 * 1024, 1024),

    /** Batch and crawl jobs: how often the jobs program looks for work (it is also woken on events). */
    JOBS_POLL_MS: intFrom(250, 10),
    /** Pages of one job in flight at once; this is what keeps one large crawl from starving other jobs. */
    JOB_PAGE_CONCURRENCY: intFrom(8, 1),
    /** Politeness per host within a job: pages in flight at once, and the least time between two starts. */
    CRAWL_HOST_CONCURRENCY: intFrom(4, 1),
    CRAWL_HOST_DELAY_MS: intFrom(0),
    /** A robots.txt Crawl-delay is honoured up to this many ms. */
    CRAWL_MAX_ROBOTS_DELAY_MS: intFrom(10_000),
    /** A page task not answered this long after dispatch is sent again (up to JOB_PAGE_ATTEMPTS times). */
    JOB_PAGE_TIMEOUT_MS: intFrom(300_000, 1000),
    JOB_PAGE_ATTEMPTS: intFrom(3, 1),
    /** A job still running this long after it was created ends with the pages it has. */
    JOB_MAX_MS: intFrom(2 * 3600_000, 1000),
    /** How long a finished job and its results stay readable. */
    JOB_RETENTION_MS: intFrom(24 * 3600_000, 1000),
    JOBS_METRICS_PORT: intFrom(9465),
    /** The changes format: how long an account's last render of a URL is kept to compare the next with. */
    CHANGES_RETENTION_MS: intFrom(30 * 24 * 3600_000, 1000),
    /** Webhooks: the longest a receiver may take to answer one delivery. */
    WEBHOOK_TIMEOUT_MS: intFrom(10_000, 100),
    /** Deliveries in flight at once per jobs replica (each to a different job or session). */
    WEBHOOK_CONCURRENCY: intFrom(16, 1),
    /** How often the outbox is looked at when nothing wakes the deliverer (it is woken on every event made here). */
    WEBHOOK_POLL_MS: intFrom(1_000, 10),
    /** The first retry's delay; each next one doubles (with jitter) up to an hour. */
    WEBHOOK_RETRY_BASE_MS: intFrom(5_000, 10),
    /** How long an event that keeps failing is retried before it is given up on. */
    WEBHOOK_RETRY_FOR_MS: intFrom(24 * 3600_000, 1000),
    /** How long delivered and given-up events (and their attempts) are kept to be read. */
    WEBHOOK_RETENTION_MS: intFrom(7 * 24 * 3600_000, 1000),
    FLEET_ALLOW_PRIVATE: z.string().optional(),
    /** wait.until auto: the longest a page is waited for to settle when the request sets no wait.budget. */
    SETTLE_BUDGET_MS: intFrom(5_000, 100),
    WORKER_ID: z.string().optional(),
    /** The User-Agent of the service's own fetches of a site (robots.txt, sitemaps) for map and crawl. */
    CRAWL_USER_AGENT: z.string().min(1).default("BrowserfleetBot/1.0 (+https://browserfleet.dev/bot)"),

    /** Postgres; without it `npm start` runs an embedded PostgreSQL with its data in DATA_DIR/postgres. */
    DATABASE_URL: z.string().optional(),
    POSTGRES_PORT: intFrom(54329, 1),
    /**
     * As root the embedded PostgreSQL runs as the `postgres` user; when that user cannot enter DATA_DIR (a
     * clone in root's home), its binaries and cluster go here instead, and DATA_DIR/postgres links to it.
     */
    EMBEDDED_POSTGRES_DIR: z.string().min(1).default("/var/lib/browserfleet"),

    /** How long the api remembers a valid API key; a revocation takes effect within this time (0: never remember). */
    KEY_CACHE_MS: intFrom(2000),
    /**
     * Calls served wholly from cache are charged from a per-replica balance lease: the most one lease takes
     * from an account (micro-dollars) and how long it is kept before what is left goes back.
     */
    BALANCE_LEASE_MICROS: intFrom(50_000, 1),
    /** The most one lease takes: a busy key's leases grow to last BALANCE_LEASE_MS at its rate, up to this. */
    BALANCE_LEASE_MAX_MICROS: intFrom(5_000_000, 1),
    BALANCE_LEASE_MS: intFrom(5_000, 100),

    /** Render cache (maxAge): how long rows are kept at most, and the largest value stored. */
    CACHE_RETENTION_MS: intFrom(7 * 24 * 3600_000, 1000),
    CACHE_MAX_ENTRY_BYTES: intFrom(8 * 1024 * 1024, 1024),
    /** Hot cache entries each api replica also keeps in memory (bytes; 0 turns the memory tier off). */
    CACHE_MEMORY_BYTES: intFrom(64 * 1024 * 1024),
    /** How long an answer cut to maxTokens is kept for its cursor (reading on in parts), in ms. */
    RENDER_KEEP_MS: intFrom(3600_000, 1000),
    /**
     * Files given out by URL (binaryAs "url": screenshots, PDFs, documents): `files` keeps them in
     * ARTIFACTS_DIR (default DATA_DIR/artifacts; one api replica), `s3` in an S3-compatible bucket.
     */
    ARTIFACTS_STORE: z.enum(["files", "s3"]).default("files"),
    ARTIFACTS_DIR: z.string().optional(),
    /** How long a file's URL works; then the file is deleted within the hour. */
    ARTIFACT_TTL_MS: intFrom(24 * 3600_000, 1000),
    /**
     * How long a session's recording (record: true) is kept after the session's longest life ends
     * (SESSION_MAX_LIFETIME_MS from its open); then it is deleted within the hour.
     */
    RECORDING_TTL_MS: intFrom(7 * 24 * 3600_000, 60_000),
    /** The largest recording of one session, compressed: a recording stops there (and says so). */
    RECORDING_MAX_BYTES: intFrom(64 * 1024 * 1024, 64 * 1024),
    /**
     * Signs file URLs; every api replica needs the same one (the chart keeps it in a Secret). Without it,
     * `npm start` makes one in DATA_DIR/artifact-url-secret, kept across restarts.
     */
    ARTIFACT_URL_SECRET: z.string().min(32).optional(),
    /**
     * The keys profiles are sealed with (AES-256-GCM): `id:base64key[,id:base64key...]`, 32-byte keys, the
     * first seals, any opens what it sealed (rotation: put the new key first; rows are sealed again with
     * it on their next save, or at once with `npm run admin -- profiles-reseal`). Without it, `npm start`
     * makes one key in DATA_DIR/profile-key, kept across restarts.
     */
    PROFILE_KEYS: z.string().min(1).optional(),
    /** The largest saved browser state (cookies, localStorage, IndexedDB as JSON): it travels in tasks. */
    PROFILE_MAX_BYTES: intFrom(512 * 1024, 1024),
    /** How many profiles one account may keep. */
    PROFILES_PER_ACCOUNT: intFrom(100, 1),
    /**
     * Egress proxy pools, a JSON array: `[{"name":"de","url":"http://user:pass@proxy:3128","countries":["DE"],
     * "default":false,"priceMicros":2000}]`. A request picks one with proxy "pool:<name>", or proxy "auto" (the
     * default) picks the pool of its location.country, else the default pool, else none. The chart keeps it
     * in a Secret; every target behind a pool still passes the SSRF guard.
     */
    EGRESS_PROXIES: egressPoolsSetting,
    /** Whether a caller may bring its own proxy (`proxy: { server, username, password }`); never one in private space. */
    CALLER_PROXIES: z.enum(["on", "off"]).default("off"),
    S3_BUCKET: z.string().min(1).optional(),
    /** An S3-compatible endpoint (MinIO, SeaweedFS, Ceph, R2); AWS itself when absent. */
    S3_ENDPOINT: z.string().url().optional(),
    S3_REGION: z.string().default("us-east-1"),
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    /** Keys go under this prefix, so one bucket can hold other things too. */
    S3_PREFIX: z.string().default(""),
    /** Path-style addressing (most S3-compatible servers); false: virtual-hosted style (AWS). */
    S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("true"),
    /** Over MCP, a screenshot larger than this (bytes) is sent as a resource link, not inline base64. */
    MCP_INLINE_IMAGE_MAX_BYTES: intFrom(256 * 1024),
    /** `shared` (the spec: one cache for every caller) or `account` (entries only serve the caller who paid for them). */
    CACHE_SCOPE: z.enum(["shared", "account"]).default("shared"),
    /** The json format: an OpenAI-compatible chat-completions endpoint (…/v1); without it json is not_configured. */
    LLM_BASE_URL: z.string().url().optional(),
    LLM_API_KEY: z.string().min(1).optional(),
    LLM_MODEL: z.string().min(1).default("gpt-4o-mini"),
    LLM_TIMEOUT_MS: intFrom(60_000, 1000),
    /** Characters of a page's markdown sent to the model at most; longer pages are cut. */
    LLM_MAX_INPUT_CHARS: intFrom(120_000, 1000),
    /** Browser origins allowed to call /mcp besides the api's own (comma-separated, or *). */
    MCP_ALLOWED_ORIGINS: z.string().default(""),

    /** Rate limits per minute: priced calls per key or per keyless client, and reads (GET, polls, closes). */
    RATE_LIMIT_PER_MINUTE: intFrom(600, 1),
    RATE_LIMIT_KEYLESS_PER_MINUTE: intFrom(60, 1),
    RATE_LIMIT_READ_PER_MINUTE: intFrom(3000, 1),
    /** How many reverse-proxy hops in front of the api to trust for the client address (X-Forwarded-For). */
    TRUSTED_PROXY_HOPS: intFrom(0),

    /** The api's public address, used in x402 resource URLs; defaults to the request's own Host. */
    PUBLIC_BASE_URL: z.string().url().optional(),

    /**
     * How an account adds money, in the operator's words (`GET /web/v1/account`'s topUp, shown by the
     * console): a billing address, a payment page. Without it, the account is told to ask the operator.
     */
    TOPUP_INSTRUCTIONS: z.string().min(1).max(2000).optional(),

    /** x402 wallet payments (protocol v2). Without X402_PAY_TO, wallet payments are off and keyless calls get 401. */
    X402_PAY_TO: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .optional(),
    X402_NETWORK: z
      .string()
      .regex(/^[a-z0-9-]+:[\w-]+$/)
      .default("eip155:8453"),
    X402_ASSET: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .default("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
    X402_ASSET_NAME: z.string().default("USD Coin"),
    X402_ASSET_VERSION: z.string().default("2"),
    X402_MAX_TIMEOUT_SECONDS: intFrom(300, 10),
    /** Settle through a facilitator at this URL, or self-hosted with a signer key and an RPC URL. */
    X402_FACILITATOR_URL: z.string().url().optional(),
    X402_FACILITATOR_PRIVATE_KEY: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .optional(),
    X402_RPC_URL: z.string().url().optional(),

    /**
     * Web search (POST /web/v1/search/{provider}, MCP web_search_{provider}). A provider is on when its key is
     * set (SearXNG: its URL); the base URLs default to the providers' public APIs and may point at a proxy.
     */
    SEARCH_BRAVE_API_KEY: z.string().min(1).optional(),
    SEARCH_BRAVE_BASE_URL: z.string().url().default("https://api.search.brave.com"),
    SEARCH_TAVILY_API_KEY: z.string().min(1).optional(),
    SEARCH_TAVILY_BASE_URL: z.string().url().default("https://api.tavily.com"),
    /** A self-hosted SearXNG whose settings.yml lists json under search.formats; no key. */
    SEARCH_SEARXNG_BASE_URL: z.string().url().optional(),
    /** The most one search may wait for its provider (all its pages), and the largest provider answer read. */
    SEARCH_TIMEOUT_MS: intFrom(15_000, 100),
    SEARCH_MAX_RESPONSE_BYTES: intFrom(4 * 1024 * 1024, 1024),
  })
  .superRefine((c, ctx) => {
    if (c.ARTIFACTS_STORE === "s3" && !c.S3_BUCKET)
      ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "ARTIFACTS_STORE=s3 needs S3_BUCKET" });
  });
export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}
export { type EgressPool, egressPool, egressPools } from "./egress-pools.ts";
export { keptSecret } from "./kept-secret.ts";
