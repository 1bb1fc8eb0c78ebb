import {
  actRequest,
  batchRequest,
  crawlRequest,
  feedbackRequest,
  mapRequest,
  type SearchRequest,
  scrapeRequest,
  searchRequest,
  sessionRequest,
} from "@browserfleet/contracts";
import { PRICE_RULES } from "@browserfleet/pricing";
import type { Request } from "express";
import { z } from "zod";
import { ALLOWANCE } from "../allowance/index.ts";
import { mcpCaller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { recordFeedback } from "../routes/feedback.ts";
import { jobStatus, startJob } from "../routes/jobs.ts";
import { paidMap } from "../routes/map.ts";
import { paidScrape } from "../routes/scrape.ts";
import { paidSearch, searchProviders } from "../routes/search.ts";
import { closeSession, paidAct, paidSessionOpen } from "../routes/session.ts";

/** MCP tool annotations: what calling the tool does to the world, for clients deciding what to confirm. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Reaches arbitrary web sites (or an external index), not only this service. */
  openWorldHint: boolean;
}

/** Reads the web, changes nothing: scrape, map, search. */
const READS_WEB: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};
/** Starts something in this service that then reads the web: a job or a session. */
const STARTS: ToolHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};
/** Reads this service's own state. */
const STATUS: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export interface Tool {
  name: string;
  /** Short human-readable name (MCP title). */
  title: string;
  hints: ToolHints;
  description: string;
  input: z.ZodType;
  /** The REST route this tool is, per the spec's tool-to-route mapping. */
  route: string;
  /** Missing: the route is not built on this deployment yet (same as its REST 501). */
  run?: (ctx: ApiContext, req: Request, args: never) => Promise<unknown>;
}

const jobId = z.strictObject({
  jobId: z.string().min(1).max(200),
  cursor: z
    .string()
    .max(100)
    .optional()
    .describe("The `next` value of the previous status, for more results"),
  limit: z.int().min(1).max(200).default(50).describe("Page results per call"),
});
const sessionId = z.strictObject({ sessionId: z.string().min(1).max(200) });

/** A job status tool: the GET status route with the cursor and limit as arguments. */
const statusOf =
  (kind: "batch" | "crawl", tool: string) => (ctx: ApiContext, req: Request, args: z.infer<typeof jobId>) =>
    jobStatus(ctx, mcpCaller(ctx, req, tool), kind, args.jobId, { cursor: args.cursor, limit: args.limit });

/** The MCP tools (spec: MCP endpoint), each mapped onto its REST route and sharing its contract. */
export const TOOLS: Tool[] = [
  {
    name: "web_scrape",
    title: "Scrape a web page",
    hints: READS_WEB,
    route: "POST /web/v1/scrape",
    description: `Render a page in a real browser and return markdown, html, links, screenshot, pdf, elements, json, accessibility or controls (what can be clicked or typed into, with refs for web_act). $0.001 per format; keyless callers get ${ALLOWANCE.scrape.perDay} free a day, at most ${ALLOWANCE.scrape.perSitePerDay} distinct pages of a site, without screenshot, pdf or json.`,
    input: scrapeRequest,
    run: (ctx, req, args: z.infer<typeof scrapeRequest>) =>
      paidScrape(ctx, args, mcpCaller(ctx, req, "web_scrape")),
  },
  {
    name: "web_session_open",
    title: "Open a live browser session",
    hints: STARTS,
    route: "POST /web/v1/session",
    description: `Open a live browser session on a page and keep it open for web_act. Returns sessionId, expiresAt and the page's formats (default: controls, the list of what can be clicked or typed into, each with a ref). $0.005 including the first minute; close it with web_session_close when done. Keyless callers get ${ALLOWANCE.session.ever} free session, without screenshot, pdf or json.`,
    input: sessionRequest,
    run: (ctx, req, args: z.infer<typeof sessionRequest>) =>
      paidSessionOpen(ctx, args, mcpCaller(ctx, req, "web_session_open")),
  },
  {
    name: "web_act",
    title: "Act in a browser session",
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    route: "POST /web/v1/act",
    description: `Run 1 to 25 actions in order in an open session, e.g. {type:{ref,text}}, {press:'Enter'}, {click:{ref}}, {select:{ref,values}}, {wait:{text}}, {scroll:{}}, {navigate:{url}}, {back:{}}. Refs come from the latest controls map; the first failing action stops the run. Returns what ran and the page's formats afterwards. $0.0005 per action that ran, plus $0.004 per minute open past the first. Keyless callers get ${ALLOWANCE.act.ever} free actions in all.`,
    input: actRequest,
    run: (ctx, req, args: z.infer<typeof actRequest>) => paidAct(ctx, args, mcpCaller(ctx, req, "web_act")),
  },
  {
    name: "web_session_close",
    title: "Close a browser session",
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    route: "DELETE /web/v1/session/:id",
    description: "Close a browser session and free its browser at once (free; closing twice is fine).",
    input: sessionId,
    run: (ctx, req, args: z.infer<typeof sessionId>) =>
      closeSession(ctx, args.sessionId, mcpCaller(ctx, req, "web_session_close")),
  },
  {
    name: "web_scrape_batch",
    title: "Scrape many pages (background job)",
    hints: STARTS,
    route: "POST /web/v1/scrape/batch",
    description:
      "Scrape 2 to 50 URLs with the same options as one background job (needs an API key). Returns jobId at once; poll web_batch_status for progress and results. Holds the most it can cost ($0.001 per format per URL) and gives back what pages did not use.",
    input: batchRequest,
    run: (ctx, req, args: z.infer<typeof batchRequest>) =>
      startJob(ctx, mcpCaller(ctx, req, "web_scrape_batch"), "batch", args),
  },
  {
    name: "web_batch_status",
    title: "Batch job status and results",
    hints: STATUS,
    route: "GET /web/v1/scrape/batch/:id",
    description:
      "Status, counts and the next finished page results of a batch job, in URL order. Call again with cursor = next while status is queued or running. Free.",
    input: jobId,
    run: statusOf("batch", "web_batch_status"),
  },
  {
    name: "web_map",
    title: "List the URLs of a site",
    hints: READS_WEB,
    route: "POST /web/v1/map",
    description:
      "List the URLs of a site (up to limit, default 1000, max 5000): its sitemaps (robots.txt, /sitemap.xml, indexes) plus the links on the rendered page, normalized and de-duplicated, with the filters search, includePaths, excludePaths, includeSubdomains. $0.0003 per started 1000 URLs of limit; keyless callers get 10 a day.",
    input: mapRequest,
    run: (ctx, req, args: z.infer<typeof mapRequest>) => paidMap(ctx, args, mcpCaller(ctx, req, "web_map")),
  },
  {
    name: "web_crawl",
    title: "Crawl a site (background job)",
    hints: STARTS,
    route: "POST /web/v1/crawl",
    description:
      "Crawl a site breadth-first from url, following links within the site (limit default 25, max 200 pages; maxDepth default 2; robots.txt obeyed), scraping every page with the given formats, as a background job (needs an API key). Returns jobId at once; poll web_crawl_status. $0.001 per format per page scraped.",
    input: crawlRequest,
    run: (ctx, req, args: z.infer<typeof crawlRequest>) =>
      startJob(ctx, mcpCaller(ctx, req, "web_crawl"), "crawl", args),
  },
  {
    name: "web_crawl_status",
    title: "Crawl job status and results",
    hints: STATUS,
    route: "GET /web/v1/crawl/:id",
    description:
      "Status, counts and the next finished page results of a crawl job, in discovery order. Call again with cursor = next while status is queued or running. Free.",
    input: jobId,
    run: statusOf("crawl", "web_crawl_status"),
  },
  {
    name: "web_feedback",
    title: "Send feedback to the operators",
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    route: "POST /web/v1/feedback",
    description:
      "Tell the operators about a wrong or poor result, a price that looks wrong, a bug or a wish (free, no key needed). Name the url, requestId, jobId or sessionId it is about so they can find it.",
    input: feedbackRequest,
    run: (ctx, req, args: z.infer<typeof feedbackRequest>) => recordFeedback(ctx, req, args),
  },
];

/** One web_search_<provider> tool per configured provider, each on the REST route's code path. */
export function searchTools(ctx: ApiContext): Tool[] {
  return [...searchProviders(ctx).values()].map((provider) => {
    const name = `web_search_${provider.name}`;
    return {
      name,
      title: `Search the web (${provider.name})`,
      hints: READS_WEB,
      route: `POST /web/v1/search/${provider.name}`,
      description: `Search the web with ${provider.about}. Returns ranked results, each with url, title, domain, a snippet (unless snippets: false) and publishedAt when known; read a page with web_scrape. limit: default 10, at most ${provider.maxResults} here. Filters: domains (only these sites, subdomains included), excludeDomains, since (ISO date: only pages published after it; pages with no known date are kept). ${PRICE_RULES.search} A search with no result, or one the provider fails (an error that says so), is not charged. Keyless callers get 5 searches in all.`,
      input: searchRequest,
      run: (ctx: ApiContext, req: Request, args: SearchRequest) =>
        paidSearch(ctx, provider, args, mcpCaller(ctx, req, name)),
    };
  });
}

const toolsByContext = new WeakMap<ApiContext, Tool[]>();

/** Every tool of this deployment: the fixed ones plus a search tool per configured provider. */
export function toolsFor(ctx: ApiContext): Tool[] {
  let tools = toolsByContext.get(ctx);
  if (!tools) {
    tools = [...TOOLS, ...searchTools(ctx)];
    toolsByContext.set(ctx, tools);
  }
  return tools;
}

export const notYet = (tool: Tool) =>
  new ApiError("not_implemented", `${tool.name} (${tool.route}) is not available on this deployment yet`);
