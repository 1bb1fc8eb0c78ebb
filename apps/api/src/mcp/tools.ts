import {
  actRequest,
  batchRequest,
  crawlRequest,
  feedbackRequest,
  mapRequest,
  scrapeRequest,
  sessionRequest,
} from "@browserfleet/contracts";
import type { Request } from "express";
import { z } from "zod";
import { mcpCaller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { paidScrape } from "../routes/scrape.ts";
import { closeSession, paidAct, paidSessionOpen } from "../routes/session.ts";

export interface Tool {
  name: string;
  description: string;
  input: z.ZodType;
  /** The REST route this tool is, per the spec's tool-to-route mapping. */
  route: string;
  /** Missing: the route is not built on this deployment yet (same as its REST 501). */
  run?: (ctx: ApiContext, req: Request, args: never) => Promise<unknown>;
}

const jobId = z.strictObject({ jobId: z.string().min(1).max(200) });
const sessionId = z.strictObject({ sessionId: z.string().min(1).max(200) });

/** The MCP tools (spec: MCP endpoint), each mapped onto its REST route and sharing its contract. */
export const TOOLS: Tool[] = [
  {
    name: "web_scrape",
    route: "POST /web/v1/scrape",
    description:
      "Render a page in a real browser and return markdown, html, links, screenshot, pdf, elements, json, accessibility or controls (what can be clicked or typed into, with refs for web_act). $0.001 per format; keyless callers get a small free daily allowance.",
    input: scrapeRequest,
    run: (ctx, req, args: z.infer<typeof scrapeRequest>) =>
      paidScrape(ctx, args, mcpCaller(ctx, req, "web_scrape")),
  },
  {
    name: "web_session_open",
    route: "POST /web/v1/session",
    description:
      "Open a live browser session on a page and keep it open for web_act. Returns sessionId, expiresAt and the page's formats (default: controls, the list of what can be clicked or typed into, each with a ref). $0.005 including the first minute; close it with web_session_close when done.",
    input: sessionRequest,
    run: (ctx, req, args: z.infer<typeof sessionRequest>) =>
      paidSessionOpen(ctx, args, mcpCaller(ctx, req, "web_session_open")),
  },
  {
    name: "web_act",
    route: "POST /web/v1/act",
    description:
      "Run 1 to 25 actions in order in an open session, e.g. {type:{ref,text}}, {press:'Enter'}, {click:{ref}}, {select:{ref,values}}, {wait:{text}}, {scroll:{}}, {navigate:{url}}, {back:{}}. Refs come from the latest controls map; the first failing action stops the run. Returns what ran and the page's formats afterwards. $0.0005 per action that ran, plus $0.004 per minute open past the first.",
    input: actRequest,
    run: (ctx, req, args: z.infer<typeof actRequest>) => paidAct(ctx, args, mcpCaller(ctx, req, "web_act")),
  },
  {
    name: "web_session_close",
    route: "DELETE /web/v1/session/:id",
    description: "Close a browser session and free its browser at once (free; closing twice is fine).",
    input: sessionId,
    run: (ctx, req, args: z.infer<typeof sessionId>) =>
      closeSession(ctx, args.sessionId, mcpCaller(ctx, req, "web_session_close")),
  },
  {
    name: "web_scrape_batch",
    route: "POST /web/v1/scrape/batch",
    description: "Scrape 2 to 50 URLs as one job (needs an API key); poll with web_batch_status.",
    input: batchRequest,
  },
  {
    name: "web_batch_status",
    route: "GET /web/v1/scrape/batch/:id",
    description: "Status and results of a batch job.",
    input: jobId,
  },
  {
    name: "web_map",
    route: "POST /web/v1/map",
    description: "List the URLs of a site from its sitemaps and the page's links.",
    input: mapRequest,
  },
  {
    name: "web_crawl",
    route: "POST /web/v1/crawl",
    description: "Crawl a site from a start page (needs an API key); poll with web_crawl_status.",
    input: crawlRequest,
  },
  {
    name: "web_crawl_status",
    route: "GET /web/v1/crawl/:id",
    description: "Status and results of a crawl job.",
    input: jobId,
  },
  {
    name: "web_feedback",
    route: "POST /web/v1/feedback",
    description: "Report a problem with a result (free).",
    input: feedbackRequest,
  },
];

export const notYet = (tool: Tool) =>
  new ApiError("not_implemented", `${tool.name} (${tool.route}) is not available on this deployment yet`);
