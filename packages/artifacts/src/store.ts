/**
 * Where files given out by URL live (screenshots, PDFs, documents with binaryAs "url"). Keys are
 * `<hour>/<id>.<ext>`: the hour (UTC, YYYYMMDDHH) after the file expires, so a sweep deletes whole hours
 * that have passed instead of reading every object's date.
 */
export interface StoredFile {
  body: Buffer;
  contentType: string;
}

export interface ArtifactStore {
  readonly kind: "files" | "s3";
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** The file, or undefined when there is none under `key`. Throws when the store cannot be read. */
  get(key: string): Promise<StoredFile | undefined>;
  /** Whether a file is there under `key` (without reading it). */
  has(key: string): Promise<boolean>;
  /** Deletes every file of the hours that began at or before `now`; returns how many files went. */
  sweep(now: Date): Promise<number>;
  close(): Promise<void>;
}

const HOUR = 3600_000;

/** YYYYMMDDHH of an hour's start (UTC). */
export function hourName(ms: number): string {
  return new Date(Math.floor(ms / HOUR) * HOUR).toISOString().slice(0, 13).replace(/[-T]/g, "");
}

/** The hour folder a file expiring at `expiresAt` goes into: the first hour that starts after it. */
export const hourAfter = (expiresAt: number): string => hourName(expiresAt + HOUR);

/** An hour folder's start, from its name; NaN when the name is not one. */
export function hourStart(name: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4])) : Number.NaN;
}

export const KEY_PATTERN = /^(\d{10})\/([A-Za-z0-9_-]{22,64})\.([a-z0-9]{2,5})$/;

export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpeg: "image/jpeg",
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  csv: "text/csv; charset=utf-8",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
};
