import type { ScrapeRequest } from "@browserfleet/contracts";
import { looksLikeDocumentType } from "@browserfleet/documents";
import type { Page, Response } from "playwright-core";

/** A navigation that may have landed on a document, as openPage saw it. */
export interface DocumentCandidate {
  /** Final URL of the navigation, redirects followed. */
  url: string;
  status?: number;
  contentType?: string;
  /** The Content-Length the server declared, if any. */
  contentLength?: number;
  /** Chromium turned the navigation into a download: there is no page to fall back to. */
  download: boolean;
  /** The browser's response, whose body is the file itself when Chromium showed it as text. */
  response?: Response;
}

/** Whether a request may take the document path at all. */
export const documentsWanted = (req: ScrapeRequest) =>
  req.url !== undefined && req.documents?.enabled !== false;

const isDownloadError = (err: unknown) =>
  /Download is starting/i.test((err as Error | undefined)?.message ?? "");

/** Watches the main frame's navigation responses, to tell a document from a page (or a download). */
export function watchNavigation(page: Page) {
  let last: Response | undefined;
  const onResponse = (r: Response) => {
    try {
      if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) last = r;
    } catch {
      // A response without a frame (a service worker's) is no navigation.
    }
  };
  page.on("response", onResponse);
  const candidate = (r: Response, download: boolean): DocumentCandidate => {
    const headers = r.headers();
    const length = Number.parseInt(headers["content-length"] ?? "", 10);
    return {
      url: r.url(),
      status: r.status(),
      contentType: headers["content-type"],
      ...(Number.isFinite(length) ? { contentLength: length } : {}),
      download,
      response: r,
    };
  };
  return {
    stop: () => page.off("response", onResponse),
    /** After a goto that succeeded: a document candidate when the response's headers say it may be one. */
    fromResponse(response: Response | null): DocumentCandidate | undefined {
      if (!response) return undefined;
      const type = response.headers()["content-type"];
      return looksLikeDocumentType(type, response.url()) ? candidate(response, false) : undefined;
    },
    /** After a goto that threw: a candidate when the navigation became a download. */
    fromError(err: unknown, fallbackUrl: string): DocumentCandidate | undefined {
      if (!isDownloadError(err)) return undefined;
      return last ? candidate(last, true) : { url: fallbackUrl, download: true };
    },
  };
}
