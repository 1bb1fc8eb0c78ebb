import {
  type DownloadSeen,
  MAX_DOWNLOAD_BYTES,
  MAX_DOWNLOADS_LISTED,
  MAX_DOWNLOADS_RESULT_BYTES,
} from "@browserfleet/contracts";
import { convertDocument, DocumentError, sniffDocument } from "@browserfleet/documents";
import type { BrowserContext, Download, Page } from "playwright-core";
import { errorOf } from "../errors.ts";
import { mediaTypeOf } from "./media-types.ts";

/** A download as it came out: its report without the bytes, and the bytes when it finished. */
interface Captured {
  seen: DownloadSeen;
  bytes?: Buffer;
}

/** How long a document's conversion to markdown may take in an act. */
const CONVERT_MS = 10_000;

/**
 * What a session's pages download. Every download of every tab is read as it finishes (its request went
 * through the worker's SSRF guard like any other), kept up to MAX_DOWNLOAD_BYTES, and reported with the
 * next result; Playwright deletes its own copy when the context closes.
 */
export class SessionDownloads {
  #running: { download: Download; tab: string; during?: number; done: Promise<Captured> }[] = [];
  #during: number | undefined;

  constructor(context: BrowserContext, tabOf: (page: Page) => string) {
    const watch = (page: Page) =>
      page.on("download", (download) => {
        const tab = tabOf(page);
        const during = this.#during;
        this.#running.push({
          download,
          tab,
          ...(during !== undefined ? { during } : {}),
          done: capture(download, tab, during),
        });
      });
    for (const page of context.pages()) watch(page);
    context.on("page", watch);
  }

  /** Which action of an act is running, for the report. */
  set during(index: number | undefined) {
    this.#during = index;
  }

  /**
   * The downloads started since the last call, waiting until `deadline` for those still running (past it,
   * one is cancelled and reported as a timeout). With `markdown`, documents are converted too.
   */
  async take(deadline: number, markdown: boolean): Promise<{ downloads?: DownloadSeen[] }> {
    const taken = this.#running.splice(0, MAX_DOWNLOADS_LISTED);
    if (taken.length === 0) return {};
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => {
      timer = setTimeout(() => r("late"), Math.max(0, deadline - Date.now()));
    });
    const out: DownloadSeen[] = [];
    let carried = 0;
    try {
      for (const { download, tab, during, done } of taken) {
        const got = await Promise.race([done, late]);
        if (got === "late") {
          void download.cancel().catch(() => {});
          out.push({
            ...reportOf(download, tab, during),
            error: { code: "timeout", message: "the download did not finish by the end of the act" },
          });
          continue;
        }
        const { seen, bytes } = got;
        if (!bytes) {
          out.push(seen);
          continue;
        }
        if (carried + bytes.length > MAX_DOWNLOADS_RESULT_BYTES) {
          out.push({
            ...seen,
            error: {
              code: "downloads_over_budget",
              message: `this result already carries ${carried} bytes of downloaded files; the file was kept out (download it again in its own act)`,
            },
          });
          continue;
        }
        carried += bytes.length;
        out.push({
          ...seen,
          data: bytes.toString("base64"),
          ...(markdown ? await asMarkdown(seen, bytes) : {}),
        });
      }
    } finally {
      clearTimeout(timer);
    }
    return { downloads: out };
  }
}

function reportOf(download: Download, tab: string, during: number | undefined): DownloadSeen {
  const name = download.suggestedFilename();
  return {
    name,
    url: download.url(),
    type: mediaTypeOf(name),
    tab,
    ...(during !== undefined ? { during } : {}),
  };
}

/** The file's name as a URL, so a document is told by its extension when its bytes do not say. */
const asFileUrl = (name: string) => `file:///${encodeURIComponent(name)}`;

async function capture(download: Download, tab: string, during: number | undefined): Promise<Captured> {
  const seen = reportOf(download, tab, during);
  try {
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > MAX_DOWNLOAD_BYTES) {
        stream.destroy();
        return {
          seen: {
            ...seen,
            error: {
              code: "download_too_large",
              message: `the file is larger than ${MAX_DOWNLOAD_BYTES} bytes, the most a session keeps`,
            },
          },
        };
      }
      chunks.push(chunk as Buffer);
    }
    const bytes = Buffer.concat(chunks);
    const document = sniffDocument({ bytes, url: asFileUrl(seen.name) });
    return {
      seen: { ...seen, size, ...(document ? { type: DOCUMENT_TYPES[document] ?? seen.type } : {}) },
      bytes,
    };
  } catch (err) {
    const failure = await download.failure().catch(() => null);
    return {
      seen: {
        ...seen,
        error: { code: "download_failed", message: failure ?? errorOf(err).message },
      },
    };
  }
}

const DOCUMENT_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  csv: "text/csv",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
};

/** A downloaded document as markdown, or why it could not be; other files are left as they are. */
async function asMarkdown(seen: DownloadSeen, bytes: Buffer): Promise<Partial<DownloadSeen>> {
  const type = sniffDocument({ bytes, contentType: seen.type, url: asFileUrl(seen.name) });
  if (!type) return {};
  try {
    // pdf.js takes a plain Uint8Array, not a Buffer (and may detach it: a copy).
    const converted = await convertDocument(new Uint8Array(bytes), type, {
      url: seen.url,
      timeBudgetMs: CONVERT_MS,
    });
    return { markdown: converted.markdown };
  } catch (err) {
    const code = err instanceof DocumentError ? err.code : "render_failed";
    return { error: { code, message: errorOf(err).message } };
  }
}
