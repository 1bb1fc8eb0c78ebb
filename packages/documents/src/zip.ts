import JSZip from "jszip";
import type { Budget } from "./budget.ts";
import { DocumentError } from "./errors.ts";
import { MAX_UNZIPPED_BYTES } from "./limits.ts";

export interface Zip {
  has(name: string): boolean;
  text(name: string): Promise<string | undefined>;
}

/** What JSZip knows of an entry's size before inflating it (not in its public types). */
interface SizedEntry {
  _data?: { uncompressedSize?: number };
}

/**
 * Open a ZIP-based document. Refuses archives whose entries would unpack past MAX_UNZIPPED_BYTES
 * (judged from the sizes the archive declares), so a small zip bomb cannot take the worker's memory.
 */
export async function openZip(bytes: Uint8Array, label: string, budget: Budget): Promise<Zip> {
  let zip: JSZip;
  try {
    zip = await budget.race(JSZip.loadAsync(bytes, { checkCRC32: false }));
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    throw new DocumentError(
      "document_corrupt",
      `the ${label} file is damaged or truncated: it is not a readable ZIP package`,
    );
  }
  let total = 0;
  for (const entry of Object.values(zip.files)) {
    total += (entry as unknown as SizedEntry)._data?.uncompressedSize ?? 0;
  }
  if (total > MAX_UNZIPPED_BYTES) {
    throw new DocumentError(
      "document_too_large",
      `the ${label} file unpacks to ${Math.round(total / 1024 / 1024)} MB, more than the ${MAX_UNZIPPED_BYTES / 1024 / 1024} MB allowed`,
    );
  }
  return {
    has: (name) => zip.file(name) !== null,
    async text(name) {
      const entry = zip.file(name);
      if (!entry) return undefined;
      try {
        return await budget.race(entry.async("string"));
      } catch (err) {
        if (err instanceof DocumentError) throw err;
        throw new DocumentError("document_corrupt", `the ${label} file is damaged: ${name} cannot be read`);
      }
    },
  };
}
