import type { ScrapeResponse } from "@browserfleet/contracts";
import type { Quote } from "@browserfleet/pricing";
import { applyPart, parseCursor, truncation } from "@browserfleet/render-cache";
import type { AllowanceRule } from "../allowance/index.ts";
import { type Caller, payFor } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { renderOwnerOf } from "./render-owner.ts";

const badCursor = () =>
  new ApiError(
    "invalid_cursor",
    "not a cursor this api gave out: use metadata.truncated.cursor of the previous answer",
    [{ field: "cursor", message: "not a cursor this api gave out" }],
  );

/** The cursor, or a 400 invalid_cursor (anything this api did not write), or a 410 cursor_expired. */
function decodeCursor(text: string) {
  const c = parseCursor(text);
  if (c === "invalid") throw badCursor();
  if (c === "expired")
    throw new ApiError(
      "cursor_expired",
      "the render this cursor reads on has expired: scrape the page again",
      [{ field: "cursor", message: "expired" }],
    );
  return c;
}

const notFound = () =>
  new ApiError(
    "cursor_not_found",
    "no render for this cursor: it was made by another account, wallet or client, or never existed",
    [{ field: "cursor", message: "no render for this cursor" }],
  );

/**
 * POST /web/v1/scrape { cursor, maxTokens }: the next part of a render an earlier answer was cut from,
 * read from where it was kept (no page load), charged as one cached format. The cursor is checked before
 * any payment (malformed 400, expired 410, unknown 404); a caller other than the one who made the render
 * gets the same 404, before paying where its identity is known up front (a key, a keyless client) and
 * with nothing charged otherwise (a wallet's payment is not settled when the work throws).
 */
export async function readOn(
  ctx: ApiContext,
  cursorText: string,
  maxTokens: number | undefined,
  caller: Caller,
  price: { allowance: AllowanceRule; quote: Quote },
): Promise<ScrapeResponse> {
  const { allowance, quote } = price;
  const started = performance.now();
  const cursor = decodeCursor(cursorText);
  const render = await ctx.cache.kept(cursor.render);
  if (!render || cursor.at.format >= render.formats.length) throw notFound();
  // A cursor this api wrote points inside a string or an array, or at the start of anything else.
  const value = render.data[render.formats[cursor.at.format]!];
  const size = typeof value === "string" || Array.isArray(value) ? value.length : 1;
  if (
    cursor.at.offset >= Math.max(1, size) ||
    (size === 1 && cursor.at.offset !== 0 && !Array.isArray(value))
  )
    throw badCursor();
  const known = caller.auth
    ? renderOwnerOf({ kind: "account", accountId: caller.auth.accountId })
    : caller.allowanceClient !== undefined
      ? renderOwnerOf({ kind: "allowance", client: caller.allowanceClient })
      : undefined;
  if (known !== undefined && known !== render.owner) throw notFound();
  const result = await payFor(ctx, caller, {
    allowance,
    request: { cursor: cursorText, formats: ["markdown"] },
    quote,
    description: `next part of ${render.url}`,
    holdMs: 60_000,
    final: true,
    work: async (payer) => {
      if (renderOwnerOf(payer) !== render.owner) throw notFound();
      const answer: ScrapeResponse = {
        success: true,
        data: {},
        errors: {},
        metadata: {
          url: render.url,
          ...(render.title ? { title: render.title } : {}),
          formats: render.formats as ScrapeResponse["metadata"]["formats"],
          renders: 0,
          browserMsUsed: 0,
          ms: 0,
          cached: render.formats as ScrapeResponse["metadata"]["formats"],
        },
      };
      const { rest } = applyPart(
        answer,
        render.formats,
        render.data,
        cursor.at,
        maxTokens ?? render.maxTokens,
      );
      if (rest)
        answer.metadata.truncated = truncation(rest, {
          id: cursor.render,
          expiresAt: new Date(cursor.expires * 1000),
        });
      answer.metadata.formats = Object.keys(answer.data) as ScrapeResponse["metadata"]["formats"];
      answer.metadata.cached = answer.metadata.formats;
      return { result: answer, chargeMicros: quote.micros };
    },
  });
  result.metadata.ms = Math.round(performance.now() - started);
  return result;
}
