/**
 * The S3 store the artifacts tests use (test/helpers/s3-server.ts) is a real one: SeaweedFS's weed, spoken
 * to with the AWS SDK the service uses. An object keeps its bytes and Content-Type, is listed and deleted;
 * a wrong secret is refused; a paused store makes a request time out, and it answers again once resumed
 * and after a restart on the same data.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { type S3Server, s3ServerMissing, startS3Server } from "../helpers/s3-server.ts";

// Without the binary the test fails and says how to build it, except where it cannot be built (no Go),
// as `node scripts/setup.mjs test` then says these tests skip.
const missing = s3ServerMissing();
const skip =
  missing && spawnSync("go", ["version"], { stdio: "ignore" }).status !== 0
    ? `Go is not installed, so weed cannot be built (${missing})`
    : undefined;

let server: S3Server;

function client(opts: { secretAccessKey?: string; timeoutMs?: number } = {}): S3Client {
  return new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: {
      accessKeyId: server.accessKeyId,
      secretAccessKey: opts.secretAccessKey ?? server.secretAccessKey,
    },
    maxAttempts: 1,
    // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes, and waits on.
    requestHandler: {
      connectionTimeout: opts.timeoutMs ?? 10_000,
      requestTimeout: opts.timeoutMs ?? 10_000,
      throwOnRequestTimeout: true,
    },
  });
}

before(async () => {
  if (!skip) server = await startS3Server();
});

after(async () => {
  await server?.stop();
});

test("an object keeps its bytes and Content-Type, is listed and deleted", { skip }, async () => {
  const s3 = client();
  const body = Buffer.concat([randomBytes(64 * 1024), Buffer.from([0, 255, 0x0d, 0x0a])]);
  const key = "shots/page one.png";
  await s3.send(
    new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: body, ContentType: "image/png" }),
  );

  const got = await s3.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
  assert.equal(got.ContentType, "image/png");
  assert.equal(got.ContentLength, body.length);
  assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(body), "the same bytes came back");

  const listed = await s3.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: "shots/" }));
  assert.deepEqual(
    listed.Contents?.map((o) => [o.Key, o.Size]),
    [[key, body.length]],
  );

  await s3.send(new DeleteObjectCommand({ Bucket: server.bucket, Key: key }));
  await assert.rejects(s3.send(new GetObjectCommand({ Bucket: server.bucket, Key: key })), {
    name: "NoSuchKey",
  });
  const left = await s3.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: "shots/" }));
  assert.equal(left.Contents?.length ?? 0, 0);
  s3.destroy();
});

test("a wrong secret key is refused", { skip }, async () => {
  const s3 = client({ secretAccessKey: "not-the-secret-key-at-all-000000000000" });
  await assert.rejects(
    s3.send(new PutObjectCommand({ Bucket: server.bucket, Key: "intruder.txt", Body: "no" })),
    (err: Error & { $metadata?: { httpStatusCode?: number } }) => {
      assert.equal(err.name, "SignatureDoesNotMatch");
      assert.equal(err.$metadata?.httpStatusCode, 403);
      return true;
    },
  );
  const listed = await client().send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: "intruder" }));
  assert.equal(listed.Contents?.length ?? 0, 0, "nothing was written");
  s3.destroy();
});

test("a paused store does not answer; resumed, and after a restart, it does", { skip }, async () => {
  const s3 = client();
  await s3.send(
    new PutObjectCommand({ Bucket: server.bucket, Key: "kept.txt", Body: "kept", ContentType: "text/plain" }),
  );

  server.pause();
  try {
    const short = client({ timeoutMs: 1_000 });
    const started = Date.now();
    await assert.rejects(short.send(new GetObjectCommand({ Bucket: server.bucket, Key: "kept.txt" })), {
      name: "TimeoutError",
    });
    const took = Date.now() - started;
    assert.ok(took >= 900 && took < 5_000, `the request gave up after its 1 s timeout (took ${took} ms)`);
    short.destroy();
  } finally {
    server.resume();
  }
  const again = await s3.send(new GetObjectCommand({ Bucket: server.bucket, Key: "kept.txt" }));
  assert.equal(await again.Body!.transformToString(), "kept");

  await server.restart();
  const restarted = await s3.send(new GetObjectCommand({ Bucket: server.bucket, Key: "kept.txt" }));
  assert.equal(restarted.ContentType, "text/plain");
  assert.equal(await restarted.Body!.transformToString(), "kept");
  s3.destroy();
});
