import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { type ArtifactStore, hourStart, KEY_PATTERN, type StoredFile } from "./store.ts";

export interface S3StoreOptions {
  bucket: string;
  /** Any S3-compatible endpoint (MinIO, SeaweedFS, Ceph, R2...); AWS itself when absent. */
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Keys go under this prefix ("browserfleet/" style), so one bucket can hold other things too. */
  prefix?: string;
  /** Path-style addressing (bucket in the path): what most S3-compatible servers want. */
  forcePathStyle?: boolean;
  /** Each request's bound: a store that does not answer fails that format, not the call. */
  requestTimeoutMs?: number;
}

/** An S3 bucket through the AWS SDK: what the chart and production use. */
export function s3Store(o: S3StoreOptions): ArtifactStore {
  const client = new S3Client({
    region: o.region,
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    forcePathStyle: o.forcePathStyle ?? true,
    ...(o.accessKeyId && o.secretAccessKey
      ? { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } }
      : {}),
    maxAttempts: 2,
    requestHandler: {
      connectionTimeout: 3000,
      requestTimeout: o.requestTimeoutMs ?? 10_000,
      throwOnRequestTimeout: true,
    },
  });
  const prefix = o.prefix ?? "";
  const Bucket = o.bucket;
  return {
    kind: "s3",
    async put(key, body, contentType) {
      if (!KEY_PATTERN.test(key)) throw new Error(`not an artifact key: ${key}`);
      await client.send(
        new PutObjectCommand({ Bucket, Key: prefix + key, Body: body, ContentType: contentType }),
      );
    },
    async get(key): Promise<StoredFile | undefined> {
      if (!KEY_PATTERN.test(key)) return undefined;
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: prefix + key }));
        const body = Buffer.from(await out.Body!.transformToByteArray());
        return { body, contentType: out.ContentType ?? "application/octet-stream" };
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === "NoSuchKey") return undefined;
        throw err;
      }
    },
    async has(key) {
      if (!KEY_PATTERN.test(key)) return false;
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: prefix + key }));
        return true;
      } catch (err) {
        const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === "NotFound" || e.name === "NoSuchKey" || e.$metadata?.httpStatusCode === 404)
          return false;
        throw err;
      }
    },
    async sweep(now) {
      let gone = 0;
      const hours = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, Delimiter: "/" }));
      for (const p of hours.CommonPrefixes ?? []) {
        const hour = (p.Prefix ?? "").slice(prefix.length).replace(/\/$/, "");
        const start = hourStart(hour);
        if (Number.isNaN(start) || start > now.getTime()) continue;
        let token: string | undefined;
        do {
          const page = await client.send(
            new ListObjectsV2Command({ Bucket, Prefix: `${prefix}${hour}/`, ContinuationToken: token }),
          );
          const keys = (page.Contents ?? []).map((c) => ({ Key: c.Key! }));
          if (keys.length) {
            await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }));
            gone += keys.length;
          }
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
      }
      return gone;
    },
    async close() {
      client.destroy();
    },
  };
}
