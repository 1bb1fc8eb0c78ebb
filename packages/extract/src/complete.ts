import type { Format, ScrapeRequest, ScrapeResponse } from "@browserfleet/contracts";
import { extractJson } from "./extract.ts";
import type { LlmConfig } from "./llm.ts";

export interface JsonDeps {
  llm: LlmConfig | undefined;
  maxInputChars: number;
}

/** The model endpoint behind the json format, from the LLM_* settings (undefined llm: not configured). */
export function jsonDepsFrom(c: {
  LLM_BASE_URL?: string;
  LLM_API_KEY?: string;
  LLM_MODEL: string;
  LLM_TIMEOUT_MS: number;
  LLM_MAX_INPUT_CHARS: number;
}): JsonDeps {
  return {
    llm: c.LLM_BASE_URL
      ? { baseUrl: c.LLM_BASE_URL, apiKey: c.LLM_API_KEY, model: c.LLM_MODEL, timeoutMs: c.LLM_TIMEOUT_MS }
      : undefined,
    maxInputChars: c.LLM_MAX_INPUT_CHARS,
  };
}

/**
 * Formats made after the render from the page's markdown, outside the browser pod: json (model keys never
 * reach the pods that load untrusted pages, and a slot is not held while a model thinks) and changes (a
 * comparison with the account's previous render, in PostgreSQL).
 */
const FROM_MARKDOWN: ReadonlySet<Format> = new Set(["json", "changes"]);

/** The formats a browser renders for a request: those made from markdown swapped for markdown. */
export function browserFormats(formats: readonly Format[]): Format[] {
  if (!formats.some((f) => FROM_MARKDOWN.has(f))) return [...formats];
  const out = formats.filter((f) => !FROM_MARKDOWN.has(f));
  if (!out.includes("markdown")) out.push("markdown");
  return out;
}

/** The request a browser gets for `req`: json and changes swapped for markdown (see browserFormats). */
export function browserRequest<R extends Pick<ScrapeRequest, "formats" | "json">>(req: R): R {
  if (!req.formats.some((f) => FROM_MARKDOWN.has(f))) return req;
  const { json: _json, ...rest } = req;
  return { ...rest, formats: browserFormats(req.formats) } as R;
}

/**
 * Turn a browser's result for `browserRequest(req)` into the answer to `req`: run the json extraction
 * from its markdown, and drop the markdown again when the caller did not ask for it.
 */
export async function completeJson(
  req: ScrapeRequest,
  result: ScrapeResponse,
  deps: JsonDeps,
): Promise<ScrapeResponse> {
  // A result that already has json (from the cache) is complete.
  if (!req.formats.includes("json") || !req.json || "json" in result.data) return result;
  const data: Record<string, unknown> = { ...result.data };
  const errors = { ...result.errors };
  const markdown = data.markdown;
  if (typeof markdown !== "string") {
    const why = errors.markdown?.message ?? "the page gave no text";
    errors.json = { code: "render_failed", message: `nothing to extract from: ${why}` };
  } else {
    const outcome = await extractJson({
      llm: deps.llm,
      markdown,
      url: result.metadata.url,
      json: req.json,
      maxInputChars: deps.maxInputChars,
    });
    if (outcome.ok) data.json = outcome.value;
    else errors.json = { code: outcome.code, message: outcome.message };
  }
  return answerAsAsked(req.formats, result, data, errors);
}

/**
 * The answer to a request whose browser rendered markdown for a format made after (json, changes): `data`
 * and `errors` as completed, the formats in the order asked, markdown left out when it was not asked for.
 */
export function answerAsAsked(
  formats: readonly Format[],
  result: ScrapeResponse,
  data: Record<string, unknown>,
  errors: ScrapeResponse["errors"],
): ScrapeResponse {
  if (!formats.includes("markdown")) {
    delete data.markdown;
    delete errors.markdown;
  }
  const ordered: Record<string, unknown> = {};
  for (const f of formats) if (f in data) ordered[f] = data[f];
  return {
    ...result,
    success: Object.keys(ordered).length > 0,
    data: ordered,
    errors,
    metadata: { ...result.metadata, formats: [...formats] },
  };
}
