import { isTextFormat, type ScrapeResponse, type TextFormat } from "@browserfleet/contracts";
import { countValueTokens, type Position, readPart } from "@browserfleet/tokens";
import { encodeCursor } from "./cursor.ts";
import type { KeptRender, RenderCache } from "./render-cache.ts";

/** Any answer with page data and metadata: a scrape, a session's page, an act's, a job page's. */
interface Answer {
  data: Record<string, unknown>;
  metadata: Pick<ScrapeResponse["metadata"], "url" | "title" | "tokens" | "truncated">;
}

/** metadata.tokens: the tokens of each text format the answer carries (o200k_base). */
export function countAnswer<A extends Answer>(answer: A): A {
  const tokens: Partial<Record<TextFormat, number>> = {};
  for (const [f, v] of Object.entries(answer.data))
    if (isTextFormat(f) && v !== undefined) tokens[f] = countValueTokens(v);
  if (Object.keys(tokens).length > 0) answer.metadata.tokens = tokens;
  return answer;
}

export interface BudgetDeps {
  cache: Pick<RenderCache, "keep">;
  keepMs: number;
}

export const budgetDeps = (ctx: {
  cache: Pick<RenderCache, "keep">;
  config: { RENDER_KEEP_MS: number };
}): BudgetDeps => ({
  cache: ctx.cache,
  keepMs: ctx.config.RENDER_KEEP_MS,
});

/** The text formats of an answer, in the order they are read (the answer's own order). */
const textFormatsOf = (answer: Answer) => Object.keys(answer.data).filter(isTextFormat);

/** Puts one part of a render into `answer` (its text formats replaced; binary ones kept) and counts it. */
export function applyPart<A extends Answer>(
  answer: A,
  formats: readonly string[],
  data: Record<string, unknown>,
  at: Position,
  maxTokens: number,
): { answer: A; rest?: NonNullable<ReturnType<typeof readPart>["rest"]> } {
  const part = readPart(formats, data, at, maxTokens);
  const out: Record<string, unknown> = {};
  for (const [f, v] of Object.entries(answer.data)) if (!isTextFormat(f)) out[f] = v;
  Object.assign(out, part.data);
  answer.data = out;
  countAnswer(answer);
  return { answer, rest: part.rest };
}

/**
 * Fits an answer to `maxTokens`: when its text formats together are larger, the answer keeps the first
 * part, the whole render is kept for the cursor in metadata.truncated, and counts describe what is sent.
 * Without maxTokens, or when it fits, only the counts are added.
 */
export async function fitAnswer<A extends Answer>(
  deps: BudgetDeps,
  answer: A,
  maxTokens: number | undefined,
  owner: string,
  /**
   * `request`: the formats are read in the answer's order (a scrape's: what was asked first comes
   * first). `largest-last`: the smallest first, so what is cut is the largest (an act: its small formats
   * stay whole, the controls map or the page text is what is cut).
   */
  order: "request" | "largest-last" = "request",
): Promise<A> {
  countAnswer(answer);
  const counts = answer.metadata.tokens ?? {};
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  if (maxTokens === undefined || total <= maxTokens) return answer;
  const formats = textFormatsOf(answer);
  if (order === "largest-last")
    formats.sort((a, b) => (counts[a as TextFormat] ?? 0) - (counts[b as TextFormat] ?? 0));
  const data = Object.fromEntries(formats.map((f) => [f, answer.data[f]]));
  const { rest } = applyPart(answer, formats, data, { format: 0, offset: 0 }, maxTokens);
  if (!rest) return answer;
  const render: KeptRender = {
    owner,
    url: answer.metadata.url,
    ...(answer.metadata.title ? { title: answer.metadata.title } : {}),
    formats,
    data,
    maxTokens,
  };
  const kept = await deps.cache.keep(render, deps.keepMs);
  answer.metadata.truncated = truncation(rest, kept);
  return answer;
}

/** metadata.truncated for what a part left; without a kept render, no cursor (the rest cannot be read). */
export function truncation(
  rest: NonNullable<ReturnType<typeof readPart>["rest"]>,
  kept: { id: string; expiresAt: Date } | undefined,
): NonNullable<ScrapeResponse["metadata"]["truncated"]> {
  return {
    ...(rest.format ? { format: rest.format as TextFormat } : {}),
    omitted: rest.omitted as TextFormat[],
    remainingTokens: rest.remainingTokens,
    ...(kept
      ? {
          cursor: encodeCursor({
            render: kept.id,
            at: rest.next,
            expires: Math.floor(kept.expiresAt.getTime() / 1000),
          }),
          expiresAt: kept.expiresAt.toISOString(),
        }
      : {}),
  };
}

/** Who may read a kept render (KeptRender.owner): the account, wallet or keyless client that paid for it. */
export const renderOwner = {
  account: (accountId: string) => `account:${accountId}`,
  wallet: (address: string) => `wallet:${address.toLowerCase()}`,
  client: (client: string) => `allowance:${client}`,
};
