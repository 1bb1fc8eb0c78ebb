import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../src/index.ts";

describe("settings", () => {
  it("files by link on S3 need a bucket, said at start rather than at the first file", () => {
    assert.throws(() => loadConfig({ ARTIFACTS_STORE: "s3" }), /S3_BUCKET/);
    assert.equal(loadConfig({ ARTIFACTS_STORE: "s3", S3_BUCKET: "files" }).S3_BUCKET, "files");
    assert.equal(loadConfig({}).ARTIFACTS_STORE, "files");
  });

  it("a link secret shorter than 32 characters is refused", () => {
    assert.throws(() => loadConfig({ ARTIFACT_URL_SECRET: "short" }), /ARTIFACT_URL_SECRET/);
  });
});
