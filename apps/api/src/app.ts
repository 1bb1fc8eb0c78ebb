import { randomUUID } from "node:crypto";
import express, { type Express, type RequestHandler, Router } from "express";
import { identify } from "./billing/identify.ts";
import { paymentSetup } from "./billing/payment.ts";
import type { ApiContext } from "./context.ts";
import { cachedJson } from "./describe.ts";
import { ApiError, errorHandler, notFound } from "./errors.ts";
import { mountLiveView } from "./live/routes.ts";
import { mountMcp } from "./mcp/endpoint.ts";
import { buildLlmsTxt, buildOpenApi } from "./openapi.ts";
import { OPERATIONS } from "./operations/index.ts";
import { rateLimits } from "./rate-limit.ts";
import { mountRecordings } from "./recordings/routes.ts";
import { mountArtifacts } from "./routes/artifacts.ts";
import { mountDescriptions } from "./routes/describe-routes.ts";
import { mountOperations } from "./routes/operations.ts";
import { mountWebUi } from "./web-ui/serve.ts";

const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.headers["x-request-id"];
  req.requestId = typeof incoming === "string" && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader("X-Request-Id", req.requestId);
  next();
};

function timing(ctx: ApiContext): RequestHandler {
  return (req, res, next) => {
    const end = ctx.metrics.httpDuration.startTimer();
    res.on("finish", () => {
      const route = req.route?.path
        ? String(req.route.path)
        : res.statusCode === 404
          ? "unmatched"
          : req.path;
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}

/** 405 with Allow for a path the router knows under other methods. */
function methodNotAllowed(router: Router): RequestHandler {
  return (req, _res, next) => {
    const allowed = new Set<string>();
    for (const layer of (
      router as unknown as {
        stack: Array<{ route?: { methods: Record<string, boolean> }; match(p: string): boolean }>;
      }
    ).stack) {
      if (layer.route && layer.match(req.path))
        for (const m of Object.keys(layer.route.methods)) allowed.add(m.toUpperCase());
    }
    if (allowed.size === 0) return next();
    next(
      new ApiError(
        "method_not_allowed",
        `${req.method} is not allowed on ${req.path}; use ${[...allowed].join(", ")}`,
        undefined,
        { Allow: [...allowed].join(", ") },
      ),
    );
  };
}

export function createApp(ctx: ApiContext): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", false);
  app.use(requestId);
  app.use(timing(ctx));
  // Agents often forget the Content-Type: every body is read as JSON.
  app.use(
    express.json({
      limit: ctx.config.MAX_BODY_BYTES,
      type: () => true,
      strict: true,
      // The bytes as sent, so a route can recognise a body it has parsed before (ParsedBodies).
      verify: (req, _res, buf) => {
        (req as express.Request).rawBody = buf;
      },
    }),
  );

  const limits = rateLimits({
    perMinute: ctx.config.RATE_LIMIT_PER_MINUTE,
    keylessPerMinute: ctx.config.RATE_LIMIT_KEYLESS_PER_MINUTE,
    readPerMinute: ctx.config.RATE_LIMIT_READ_PER_MINUTE,
    trustedHops: ctx.config.TRUSTED_PROXY_HOPS,
  });
  const unmetered = new Set(["/healthz", "/readyz", "/metrics", "/openapi.json", "/llms.txt"]);
  // POSTs that cost nothing (feedback) share the budget of reads; every other POST (MCP too) is priced.
  const freePosts = new Set(
    OPERATIONS.filter((op) => op.method === "POST" && !op.priced).map((op) => op.path),
  );
  // Who calls (the key) first, then their rate budget: priced POSTs apart from reads, polls and closes.
  app.use(identify(ctx));
  app.use((req, res, next) => {
    // Live views are capabilities with their own budget (mountLiveView); the web UI's files are static.
    if (unmetered.has(req.path) || req.path.startsWith("/live/") || req.path.startsWith("/ui/"))
      return next();
    const priced = req.method === "POST" && !freePosts.has(req.path);
    return (priced ? limits.priced : limits.read)(req, res, next);
  });

  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ ok: true });
  });
  router.get("/readyz", async (_req, res) => {
    const natsUp = !ctx.nc.isClosed();
    const workers = natsUp && (await ctx.workers.anyAlive());
    const database = await Promise.race([
      ctx.db.sql`select 1`.then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref()),
    ]);
    const ok = natsUp && workers && database;
    res
      .status(ok ? 200 : 503)
      .json({ ok, nats: natsUp, database, browserWorkers: ctx.workers.slots().workers });
  });
  router.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", ctx.metrics.registry.contentType);
    res.send(await ctx.metrics.registry.metrics());
  });
  const setup = paymentSetup(ctx);
  router.get("/openapi.json", cachedJson(buildOpenApi(setup)));
  const llms = buildLlmsTxt(setup);
  router.get("/llms.txt", (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=3600");
    res.type("text/plain").send(llms);
  });
  mountArtifacts(router, ctx);
  mountWebUi(router);
  mountLiveView(router, ctx);
  mountRecordings(router, ctx);
  mountDescriptions(router, ctx, setup);
  mountOperations(router, ctx);
  mountMcp(router, ctx);

  app.use(router);
  app.use(methodNotAllowed(router));
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
