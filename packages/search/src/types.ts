import type { SearchRequest } from "@browserfleet/contracts";

/** One result as a provider gave it, before our filters, ranking and cut. */
export interface ProviderHit {
  url: string;
  title: string;
  snippet?: string;
  /** ISO 8601, when the provider knows when the page was published or last updated. */
  publishedAt?: string;
  score?: number;
}

export interface ProviderAnswer {
  hits: ProviderHit[];
  /** What the provider could not do as asked (a filter it lacks, engines that failed, ...). */
  warnings: string[];
}

/** How one call may reach the provider: the whole call's deadline and the largest answer read. */
export interface CallLimits {
  /** Aborts every request of the call (a timeout signal for the whole search). */
  signal: AbortSignal;
  maxBytes: number;
  /**
   * Whether a hit survives the filters applied afterwards (domains, excludeDomains, since, http(s) only).
   * Paging adapters count only these toward the limit, so filters they lack do not leave a short answer.
   */
  keeps?: (hit: ProviderHit) => boolean;
}

/** An external web index. Adapters map the request onto the provider's own parameters. */
export interface SearchProvider {
  /** The path segment and tool suffix: /web/v1/search/{name}, web_search_{name}. */
  name: string;
  /** What agents read in tool descriptions: "Brave Search's independent web index". */
  about: string;
  /** The most results one call can get from this provider; a larger limit is lowered to it. */
  maxResults: number;
  /** Why the provider would refuse this query (its own length bounds), so the caller gets a 400 instead. */
  queryProblem?(query: string): string | undefined;
  /** Ask the provider. The request's limit is at most maxResults. Throws SearchProviderError. */
  search(req: SearchRequest, limits: CallLimits): Promise<ProviderAnswer>;
}

/** The provider failed: an HTTP error, no answer in time, or a body that is not what it documents. */
export class SearchProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    /** The provider's HTTP status, when it answered one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "SearchProviderError";
  }
}
