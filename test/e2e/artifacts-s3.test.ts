/**
 * binaryAs "url" on an S3-compatible bucket (ARTIFACTS_STORE=s3), against a real SeaweedFS started here:
 * links served from the bucket, an outage of the store failing only the file's format (nothing charged
 * for it, the rest comes out), the store back, and the sweep deleting files whose hour has passed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { s3Store } from "@browserfleet/artifacts";
import { type S3Server, startS3Server } from "../helpers/s3-server.ts";
import { type Stack, startStack } from "../helpers/stack.ts";

let s3: S3Server;
let stack: Stack;
before(async () => {
  s3 = await startS3Server();
  stack = await startStack({
    env: {
      ARTIFACTS_STORE: "s3",
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_PREFIX: "files/",
      ARTIFACT_URL_SECRET: "a-test-secret-that-is-long-enough-0123456789",
    },
  });
});
after(async () => {
  await stack?.stop();
  await s3?.stop();
});

const as = (key: string) => ({ authorization: `Bearer ${key}` });
const balanceOf = async (key: string): Promise<number> =>
  (await stack.call("GET", "/web/v1/account", as(key))).body.balance.micros;
const shot = (key: string) =>
  stack.post(
    "/web/v1/scrape",
    { url: `${stack.site.url}/article`, formats: ["markdown", "screenshot", "pdf"], binaryAs: "url" },
    as(key),
  );

describe("binaryAs url on an S3 bucket", () => {
  it("files go to the bucket under the prefix, and their links serve them without a key", async () => {
    const { status, body } = await shot(stack.key);
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    const png = await fetch(body.data.screenshot);
    assert.equal(png.status, 200);
    assert.equal(png.headers.get("content-type"), "image/png");
    assert.equal(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString(),
      "PNG",
    );
    const pdf = await fetch(body.data.pdf);
    assert.equal(pdf.headers.get("content-type"), "application/pdf");
    const key = new URL(body.data.screenshot).pathname.replace("/web/v1/artifacts/", "");
    const store = s3Store({ ...s3, prefix: "files/", forcePathStyle: true });
    assert.ok(await store.get(key), "the file is in the bucket under the prefix");
    await store.close();
  });

  it("a store that does not answer fails only the files' formats, charges nothing for them, and the next call works", async () => {
    const { key } = await stack.newKey(1_000_000);
    const before = await balanceOf(key);
    s3.pause();
    let answer: Awaited<ReturnType<typeof shot>>;
    try {
      answer = await shot(key);
    } finally {
      s3.resume();
    }
    const { body } = answer;
    assert.equal(body.success, true);
    assert.match(body.data.markdown, /Fixture Article/);
    assert.equal(body.errors.screenshot.code, "storage_failed");
    assert.equal(body.errors.pdf.code, "storage_failed");
    assert.equal(before - (await balanceOf(key)), 1000, "markdown alone is charged");
    const again = await shot(key);
    assert.equal((await fetch(again.body.data.screenshot)).status, 200, "the store is back");
  });

  it("a sweep deletes the files of hours that have passed, and their links then find nothing", async () => {
    const { body } = await shot(stack.key);
    const link = body.data.screenshot as string;
    const store = s3Store({ ...s3, prefix: "files/", forcePathStyle: true });
    const key = new URL(link).pathname.replace("/web/v1/artifacts/", "");
    assert.equal(await store.has(key), true);
    assert.equal(await store.sweep(new Date()), 0, "nothing has expired yet");
    const gone = await store.sweep(new Date(Date.now() + 26 * 3600_000));
    assert.ok(gone >= 2, `${gone} files swept`);
    assert.equal((await fetch(link)).status, 404);
    assert.equal(await store.has(key), false);
    await store.close();
  });
});
