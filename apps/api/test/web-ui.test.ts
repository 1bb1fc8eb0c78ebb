import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { builtAssets, GENERATED, generatedText } from "../scripts/build-web-ui.ts";
import { liveToken, readLiveToken } from "../src/live/token.ts";
import { ASSETS } from "../src/web-ui/generated/assets.ts";
import { PAGE_CSP, pageHtml } from "../src/web-ui/serve.ts";

describe("web UI (src/web-ui)", () => {
  it("the committed bundle is the one the pages build today", async () => {
    assert.equal(
      readFileSync(GENERATED, "utf8"),
      generatedText(await builtAssets()),
      "run npm run build:web-ui -w @browserfleet/api",
    );
  });

  it("the pages' scripts stay small (preact and htm, no framework runtime of note)", () => {
    for (const page of ["viewer.js", "console.js"]) {
      const gz = gzipSync(ASSETS[page]!.body).length;
      assert.ok(gz < 20_000, `${page} is ${gz} bytes gzipped`);
    }
  });

  it("a page's shell runs only its own files: no inline script or style, a strict policy", () => {
    const html = pageHtml("viewer", "Live view", { mode: 'view"><script>alert(1)</script>' });
    assert.doesNotMatch(html, /<script>/);
    assert.match(html, /data-mode="view&quot;&gt;&lt;script&gt;/);
    assert.match(html, /<script src="\/ui\/viewer\.js\?v=[\w-]+"><\/script>/);
    assert.match(PAGE_CSP, /script-src 'self'/);
    assert.doesNotMatch(PAGE_CSP, /unsafe/);
  });
});

describe("live view tokens", () => {
  const secret = "s".repeat(40);
  const grant = { sessionId: "ses_abcdefgh1234", mode: "interactive" as const, expires: 2_000_000_000 };

  it("read back what was signed, until it expires", () => {
    const t = liveToken(secret, grant);
    assert.deepEqual(readLiveToken(secret, t, 1_000), grant);
    assert.equal(readLiveToken(secret, t, grant.expires * 1000), undefined);
  });

  it("refuse a token changed in any part, or signed under another secret", () => {
    const t = liveToken(secret, grant);
    const [sid, mode, exp, sig] = t.split(".") as [string, string, string, string];
    for (const bad of [
      [`ses_abcdefgh1235`, mode, exp, sig],
      [sid, "v", exp, sig],
      [sid, mode, String(grant.expires + 1), sig],
      [sid, mode, exp, `${sig.slice(0, -1)}A`],
    ])
      assert.equal(readLiveToken(secret, bad.join("."), 1_000), undefined, bad.join("."));
    assert.equal(readLiveToken("t".repeat(40), t, 1_000), undefined);
    assert.equal(readLiveToken(secret, "nonsense", 1_000), undefined);
  });

  it("a view-only token cannot be turned into an interactive one", () => {
    const view = liveToken(secret, { ...grant, mode: "view" });
    assert.equal(readLiveToken(secret, view.replace(".v.", ".i."), 1_000), undefined);
    assert.equal(readLiveToken(secret, view, 1_000)?.mode, "view");
  });
});
