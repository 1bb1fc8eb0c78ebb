import { z } from "zod";
import { LINE, text } from "./text.ts";

/**
 * A domain filter entry. Agents write domains many ways ("https://www.example.com/docs", "*.example.com"):
 * the scheme, path, port, a leading `*.` or `www.` and a trailing dot are dropped, and what is left must be
 * a host name. It matches that host and its subdomains.
 */
const domainName = z
  .string()
  .min(1)
  .max(255)
  .transform((s) =>
    s
      .trim()
      .toLowerCase()
      .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
      .replace(/[/?#:].*$/, "")
      .replace(/^\*\./, "")
      .replace(/^www\./, "")
      .replace(/\.$/, ""),
  )
  .pipe(z.string().regex(/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/, "expected a domain name such as example.com"));

export const searchRequest = z.strictObject({
  query: text(LINE).trim().min(1).max(1000).describe("What to search for, on one line"),
  limit: z.int().min(1).max(50).default(10).describe("Results to return"),
  snippets: z.boolean().default(true).describe("Return the text the provider shows alongside each result"),
  domains: z
    .array(domainName)
    .max(50)
    .optional()
    .describe("Only results from these domains (each matches its subdomains too)"),
  excludeDomains: z
    .array(domainName)
    .max(50)
    .optional()
    .describe("Never results from these domains (each matches its subdomains too)"),
  since: z.iso
    .date()
    .or(z.iso.datetime())
    .optional()
    .describe(
      "ISO date or date-time; only results published after it (results without a known date are kept)",
    ),
});
export type SearchRequest = z.infer<typeof searchRequest>;

export const searchResult = z.object({
  position: z.int().describe("1-based rank, in the provider's order"),
  url: z.string(),
  title: z.string(),
  domain: z.string().describe("The result's host name"),
  snippet: z
    .string()
    .optional()
    .describe("Text the provider shows alongside the result; absent with snippets: false"),
  publishedAt: z
    .string()
    .optional()
    .describe("ISO 8601 time the page was published or last updated, when the provider knows it"),
  score: z.number().optional().describe("The provider's relevance score, when it gives one"),
});
export type SearchResult = z.infer<typeof searchResult>;

export const searchResponse = z.object({
  success: z.boolean().describe("true when at least one result came out; a search with none is not charged"),
  provider: z.string(),
  query: z.string(),
  results: z.array(searchResult),
  metadata: z.object({
    limit: z.int().describe("The limit applied: the request's, lowered to the provider's maximum"),
    returned: z.int(),
    filteredOut: z
      .int()
      .describe("Results the provider sent that domains, excludeDomains or since removed afterwards"),
    warnings: z.array(z.string()).optional().describe("What the provider could not do as asked, and why"),
    providerMs: z.int().describe("Time spent waiting for the provider"),
    ms: z.int(),
  }),
});
export type SearchResponse = z.infer<typeof searchResponse>;
