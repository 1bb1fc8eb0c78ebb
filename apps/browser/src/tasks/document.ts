import {
  type DocumentFacts,
  placeOf,
  type ScrapeRequest,
  type ScrapeResponse,
} from "@browserfleet/contracts";
import {
  type ConvertedDocument,
  claimedDocumentType,
  convertDocument,
  DocumentError,
  type DocumentType,
  fileNameOf,
  mimeOf,
  sniffDocument,
} from "@browserfleet/documents";
import type { BrowserContext, Page } from "playwright-core";
import { BrowserError } from "../errors.ts";
import userAgent from "../injected/generated/user-agent.ts";
import type { GuardProxy } from "../net/guard-proxy.ts";
import { type Fetched, guardedFetch } from "../net/guarded-fetch.ts";
import type { DocumentCandidate } from "../page/document-watch.ts";
import type { ScrapeHooks } from "./hooks.ts";

/**
 * Documents without a browser: when a scrape's URL serves a PDF, Word, Excel, CSV or OpenDocument
 * file, the worker fetches its bytes through the SSRF guard proxy and converts them to markdown.
 * Markdown comes out of every document, and the pdf format of a PDF is the file itself (as base64, or a
 * link with binaryAs url); every other format requested is answered with an error.
 */

/** Largest document fetched when the request sets no documents.maxBytes. */
export const DEFAULT_DOCUMENT_MAX_BYTES = 25 * 1024 * 1024;
/** Wall time one conversion may take (the api allows 30 s beyond the page's own wait for rendering). */
export const DOCUMENT_TIME_BUDGET_MS = 20_000;

const LABELS: Record<DocumentType, string> = {
  pdf: "PDF",
  docx: "Word",
  xlsx: "Excel",
  csv: "CSV",
  odt: "OpenDocument text",
  ods: "OpenDocument spreadsheet",
};

/** An Accept-Language list as Chromium writes it: the first language whole, the others with falling weights. */
export const acceptLanguageOf = (languages: readonly string[]): string =>
  languages.map((l, i) => (i === 0 ? l : `${l};q=${Math.max(0.1, 1 - i / 10).toFixed(1)}`)).join(",");

/** The request's headers, cookies and credentials for a fetch of `url` outside the browser. */
async function requestHeaders(context: BrowserContext, req: ScrapeRequest, url: string) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.request?.headers ?? {})) {
    // The body must come as sent: guardedFetch asks for identity and decodes nothing.
    if (name.toLowerCase() !== "accept-encoding") headers[name.toLowerCase()] = value;
  }
  // The browser's cookie jar for this URL: the request's cookies and whatever the site set on the way.
  const cookies = await context.cookies(url).catch(() => []);
  if (cookies.length) headers.cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  // The location's languages, as the browser would have sent them.
  const languages = placeOf(req.location)?.languages;
  if (languages && !("accept-language" in headers)) headers["accept-language"] = acceptLanguageOf(languages);
  const auth = req.request?.auth;
  if (auth && req.url && new URL(req.url).origin === new URL(url).origin) {
    headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
  }
  return headers;
}

/** The body Chromium already holds, when it showed the file as text (a CSV served as text/plain). */
async function bodyFromBrowser(candidate: DocumentCandidate, maxBytes: number): Promise<Buffer | undefined> {
  // A PDF's response body is the built-in viewer's page, and a download's is gone: only text is kept.
  if (candidate.download || !candidate.response || !mimeOf(candidate.contentType).startsWith("text/"))
    return undefined;
  const body = await candidate.response.body().catch(() => undefined);
  return body && body.length <= maxBytes ? body : undefined;
}

export interface DocumentScrape {
  context: BrowserContext;
  page: Page;
  proxy: GuardProxy;
  req: ScrapeRequest;
  candidate: DocumentCandidate;
  /** performance.now() when the task started. */
  started: number;
  hooks: ScrapeHooks;
}

/**
 * Fetch, sniff and convert a candidate document. Returns undefined when the bytes are not a document
 * and the browser has a page to render instead; throws TaskFailure when the fetch fails, or when a
 * download turns out not to be a document (there is nothing else to render).
 */
export async function scrapeDocument(s: DocumentScrape): Promise<ScrapeResponse | undefined> {
  const { req, candidate } = s;
  const maxBytes = req.documents?.maxBytes ?? DEFAULT_DOCUMENT_MAX_BYTES;
  const tooLarge = (bytes?: number) => ({
    code: "document_too_large",
    message: `the document is ${bytes !== undefined ? `${bytes} bytes, more than` : "larger than"} the ${maxBytes} bytes allowed (documents.maxBytes sets the limit, up to 50000000)`,
  });

  const claimed = claimedDocumentType(candidate.contentType, candidate.url);
  if (candidate.contentLength !== undefined && candidate.contentLength > maxBytes) {
    return reply(s, {
      url: candidate.url,
      status: candidate.status,
      contentType: candidate.contentType,
      type: claimed,
      bytes: candidate.contentLength,
      failure: tooLarge(candidate.contentLength),
    });
  }

  let fetched: Fetched | undefined;
  let body = await bodyFromBrowser(candidate, maxBytes);
  if (!body) {
    try {
      fetched = await guardedFetch(s.proxy, candidate.url, {
        maxBytes,
        timeoutMs: req.wait?.timeout ?? 30_000,
        overflow: "fail",
        userAgent: req.request?.userAgent ?? (await s.page.evaluate(userAgent).catch(() => undefined)),
        headers: await requestHeaders(s.context, req, candidate.url),
      });
    } catch (err) {
      if (err instanceof BrowserError && err.code === "too_large") {
        return reply(s, {
          url: candidate.url,
          status: candidate.status,
          contentType: candidate.contentType,
          type: claimed,
          // The fetch stopped one byte past the limit: the file has at least this many.
          bytes: maxBytes + 1,
          failure: tooLarge(),
        });
      }
      throw err;
    }
    body = fetched.body;
  }

  const url = fetched?.finalUrl ?? candidate.url;
  const contentType = fetched?.contentType ?? candidate.contentType;
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const type = sniffDocument({ bytes, contentType, url });
  if (!type) {
    if (!candidate.download) return undefined;
    throw new BrowserError(
      "upstream_failed",
      502,
      `${url} is a file download (${mimeOf(contentType) || "no Content-Type"}), neither a page nor a document this service converts (PDF, Word .docx, Excel .xlsx, CSV, OpenDocument .odt/.ods)`,
    );
  }

  let converted: ConvertedDocument | undefined;
  let failure: { code: string; message: string } | undefined;
  let markdownMs = 0;
  if (req.formats.includes("markdown")) {
    const t0 = performance.now();
    try {
      converted = await convertDocument(bytes, type, { url, timeBudgetMs: DOCUMENT_TIME_BUDGET_MS });
    } catch (err) {
      failure =
        err instanceof DocumentError
          ? { code: err.code, message: err.message }
          : { code: "document_corrupt", message: `the ${LABELS[type]} file cannot be read: ${String(err)}` };
    }
    markdownMs = performance.now() - t0;
  }
  return reply(s, {
    url,
    status: fetched?.status ?? candidate.status,
    contentType,
    type,
    bytes: bytes.byteLength,
    body: type === "pdf" && req.formats.includes("pdf") ? bytes : undefined,
    converted,
    failure,
    markdownMs,
  });
}

interface Outcome {
  url: string;
  status?: number;
  contentType?: string;
  /** Undefined only for a file too large to be looked at, whose headers named no document type. */
  type?: DocumentType;
  bytes: number;
  /** A PDF's own bytes, when the pdf format is asked for: the file is its own pdf. */
  body?: Uint8Array;
  converted?: ConvertedDocument;
  /** Why markdown did not come out. */
  failure?: { code: string; message: string };
  /** Time the conversion took, for metrics. */
  markdownMs?: number;
}

/** The scrape's answer for a document: markdown (or why not), an error for every other format. */
function reply(s: DocumentScrape, o: Outcome): ScrapeResponse {
  const data: Record<string, unknown> = {};
  const errors: Record<string, { code: string; message: string }> = {};
  const label = o.type ? `${LABELS[o.type]} document` : "document";
  for (const f of s.req.formats) {
    if (f === "markdown") {
      if (o.converted) data.markdown = o.converted.markdown;
      else
        errors.markdown = o.failure ?? {
          code: "document_corrupt",
          message: "the document was not converted",
        };
      s.hooks.onFormat?.("markdown", o.markdownMs ?? 0, o.converted !== undefined);
      continue;
    }
    if (f === "pdf" && o.body) {
      data.pdf = Buffer.from(o.body.buffer, o.body.byteOffset, o.body.byteLength).toString("base64");
      s.hooks.onFormat?.("pdf", 0, true);
      continue;
    }
    errors[f] = {
      code: "not_for_documents",
      message: `${f} is not available: the url serves a ${label}, and only markdown (and a PDF's own file, as pdf) comes out of a document`,
    };
    s.hooks.onFormat?.(f, 0, false);
  }
  const document: DocumentFacts | undefined = o.type
    ? {
        type: o.type,
        ...(o.contentType ? { contentType: o.contentType } : {}),
        bytes: o.bytes,
        ...(o.converted?.pages !== undefined ? { pages: o.converted.pages } : {}),
        ...(o.converted?.sheets !== undefined ? { sheets: o.converted.sheets } : {}),
      }
    : undefined;
  const title = o.converted?.title ?? fileNameOf(o.url);
  return {
    success: Object.keys(data).length > 0,
    data,
    errors,
    metadata: {
      url: o.url,
      ...(o.status !== undefined ? { statusCode: o.status } : {}),
      ...(title ? { title } : {}),
      formats: s.req.formats,
      renders: Object.keys(data).length,
      browserMsUsed: Math.round(performance.now() - s.started),
      ms: 0,
      ...(document ? { document } : {}),
    },
  };
}
