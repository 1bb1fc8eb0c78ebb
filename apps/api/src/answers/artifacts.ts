import { join, resolve } from "node:path";
import {
  type ArtifactStore,
  CONTENT_TYPES,
  fileStore,
  newSignedName,
  s3Store,
  signedNameFor,
  urlOf,
  verifySignedName,
} from "@browserfleet/artifacts";
import { type Config, keptSecret } from "@browserfleet/config";
import { ARTIFACTS_PREFIX } from "../operations/artifacts.ts";

/**
 * binaryAs "url": the binary formats of an answer (screenshot, pdf) are stored and replaced by a signed
 * URL under the api that serves them without a key until they expire. The store and the signing secret
 * are made on first use, so a deployment that never gives out files never touches either.
 */
export interface Artifacts {
  store(): ArtifactStore;
  secret(): Promise<string>;
  ttlMs: number;
  close(): Promise<void>;
}

export function artifactsFrom(config: Config): Artifacts {
  let store: ArtifactStore | undefined;
  let secret: Promise<string> | undefined;
  const make = (): ArtifactStore => {
    if (config.ARTIFACTS_STORE === "s3") {
      if (!config.S3_BUCKET) throw new Error("ARTIFACTS_STORE=s3 needs S3_BUCKET");
      return s3Store({
        bucket: config.S3_BUCKET,
        region: config.S3_REGION,
        prefix: config.S3_PREFIX,
        forcePathStyle: config.S3_FORCE_PATH_STYLE === "true",
        ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
        ...(config.S3_ACCESS_KEY_ID ? { accessKeyId: config.S3_ACCESS_KEY_ID } : {}),
        ...(config.S3_SECRET_ACCESS_KEY ? { secretAccessKey: config.S3_SECRET_ACCESS_KEY } : {}),
      });
    }
    return fileStore(resolve(config.ARTIFACTS_DIR ?? join(config.DATA_DIR, "artifacts")));
  };
  return {
    store: () => {
      store ??= make();
      return store;
    },
    secret: () => {
      secret ??= config.ARTIFACT_URL_SECRET
        ? Promise.resolve(config.ARTIFACT_URL_SECRET)
        : keptSecret(config.DATA_DIR, "artifact-url-secret");
      return secret;
    },
    ttlMs: config.ARTIFACT_TTL_MS,
    close: async () => store?.close(),
  };
}

/** The binary formats, and the extension of each one's file (a screenshot's read from its bytes: JPEG or PNG). */
const BINARY: Record<string, (base64: string) => string> = {
  screenshot: (b64) => (b64.startsWith("/9j/") ? "jpeg" : "png"),
  pdf: () => "pdf",
};

interface BinaryAnswer {
  data: Record<string, unknown>;
  errors: Record<string, { code: string; message: string }>;
  metadata: { filesExpireAt?: string };
  /** A session's downloaded files (base64 in `data`). */
  downloads?: { name: string; data?: string; error?: { code: string; message: string } }[];
}

/** Stores one file and gives its link (a fresh name, kept until `expiresAt`). */
async function storeFile(
  artifacts: Artifacts,
  bytes: Buffer,
  ext: string,
  expiresAt: number,
  baseUrl: string,
) {
  const name = newSignedName(await artifacts.secret(), ext, expiresAt);
  await artifacts.store().put(name.key, bytes, CONTENT_TYPES[ext] ?? "application/octet-stream");
  return urlOf(baseUrl, ARTIFACTS_PREFIX, name);
}

/** A downloaded file's extension as stored: its name's, when a plain one, else bin. */
const storedExtension = (name: string) => {
  const ext = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1).toLowerCase() : "";
  return /^[a-z0-9]{2,5}$/.test(ext) ? ext : "bin";
};

/**
 * A session's downloads by link: each file is stored and its link put in place of its bytes. A file that
 * could not be stored keeps no data and says why; the others still come out.
 */
async function downloadsByUrl(
  artifacts: Artifacts,
  answer: BinaryAnswer,
  baseUrl: string,
  expiresAt: number,
  onError?: (err: unknown) => void,
): Promise<boolean> {
  let stored = false;
  for (const d of answer.downloads ?? []) {
    if (d.data === undefined) continue;
    try {
      d.data = await storeFile(
        artifacts,
        Buffer.from(d.data, "base64"),
        storedExtension(d.name),
        expiresAt,
        baseUrl,
      );
      stored = true;
    } catch (err) {
      onError?.(err);
      delete d.data;
      d.error = {
        code: "storage_failed",
        message: `the file was downloaded but could not be stored for its link (${(err as Error).message}); download it again, or with binaryAs base64`,
      };
    }
  }
  return stored;
}

/**
 * The bytes behind a file link this api gave out (under ARTIFACTS_PREFIX, signed and not expired), with
 * its file name; undefined for any other URL, a changed or expired link, or a file no longer there.
 */
export async function fileOfLink(
  artifacts: Artifacts,
  url: string,
): Promise<{ name: string; body: Buffer; contentType: string } | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const m = new RegExp(`^${ARTIFACTS_PREFIX}/([^/]+)/([^/]+)$`).exec(u.pathname);
  if (!m) return undefined;
  const key = `${m[1]}/${m[2]}`;
  const signed = {
    key,
    expires: u.searchParams.get("e") ?? undefined,
    signature: u.searchParams.get("s") ?? undefined,
  };
  if (!verifySignedName(await artifacts.secret(), signed)) return undefined;
  const file = await artifacts.store().get(key);
  return file ? { name: m[2]!, ...file } : undefined;
}

/**
 * Stores each binary format of `answer` and puts its URL in its place. A format whose file could not be
 * stored fails with storage_failed (the others still come out); the caller charges after this, so a
 * format that failed here is not charged, and says whether anything came out.
 */
export async function filesByUrl(
  artifacts: Artifacts,
  answer: BinaryAnswer,
  baseUrl: string,
  onError?: (err: unknown) => void,
  /** A job page's files: named from this seed and kept until the job expires, so each is stored once. */
  job?: { seed: string; expiresAt: number },
): Promise<void> {
  const wanted = Object.keys(BINARY).filter((f) => typeof answer.data[f] === "string");
  const expiresAt = job?.expiresAt ?? Date.now() + artifacts.ttlMs;
  const downloadsStored = await downloadsByUrl(artifacts, answer, baseUrl, expiresAt, onError);
  if (wanted.length === 0) {
    if (downloadsStored)
      answer.metadata.filesExpireAt = new Date(Math.floor(expiresAt / 1000) * 1000).toISOString();
    return;
  }
  await Promise.all(
    wanted.map(async (f) => {
      const ext = BINARY[f]!(answer.data[f] as string);
      try {
        const secret = await artifacts.secret();
        const name = job
          ? signedNameFor(secret, `${job.seed}\n${f}`, ext, expiresAt)
          : newSignedName(secret, ext, expiresAt);
        const store = artifacts.store();
        if (!job || !(await store.has(name.key)))
          await store.put(name.key, Buffer.from(answer.data[f] as string, "base64"), CONTENT_TYPES[ext]!);
        answer.data[f] = urlOf(baseUrl, ARTIFACTS_PREFIX, name);
      } catch (err) {
        onError?.(err);
        delete answer.data[f];
        answer.errors[f] = {
          code: "storage_failed",
          message: `the ${f} was made but could not be stored for its URL (${(err as Error).message}); ask again, or with binaryAs base64`,
        };
      }
    }),
  );
  if (downloadsStored || wanted.some((f) => typeof answer.data[f] === "string"))
    answer.metadata.filesExpireAt = new Date(Math.floor(expiresAt / 1000) * 1000).toISOString();
}

/** The api's address for file links: PUBLIC_BASE_URL, else the one the caller reached it at. */
export const publicBase = (config: Pick<Config, "PUBLIC_BASE_URL">, callerBase: string): string =>
  (config.PUBLIC_BASE_URL ?? callerBase).replace(/\/$/, "");

/** Deletes the files of hours that have passed, every `everyMs` (a files store without files costs a readdir). */
export function startArtifactSweeper(artifacts: Artifacts, everyMs: number): () => void {
  const timer = setInterval(() => {
    const failed = (err: unknown) => console.error(`artifact sweep failed: ${(err as Error).message}`);
    try {
      artifacts.store().sweep(new Date()).catch(failed);
    } catch (err) {
      failed(err);
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
