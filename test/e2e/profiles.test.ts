/**
 * Logins that last: a session logs in on the fixture site's login page and saves its browser state to a
 * profile; later calls (scrape, batch, another session) load it and see the site signed in, with what the
 * page kept in localStorage and IndexedDB. Another account naming the same profile gets nothing of it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { callTool, connectMcp, type Json } from "../helpers/mcp-client.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { waitFor } from "../helpers/wait-for.ts";

let stack: Stack;
before(async () => {
  // Small enough that a page's 40 KB offline copy is past it, large enough for a login.
  stack = await startStack({ slots: 3, env: { PROFILE_MAX_BYTES: "16384" } });
});
after(async () => {
  await stack?.stop();
});

const auth = (key = stack.key) => ({ authorization: `Bearer ${key}` });
const open = (body: Json, key?: string) => stack.post("/web/v1/session", body, auth(key));
const close = (id: string, key?: string) => stack.call("DELETE", `/web/v1/session/${id}`, auth(key));
const scrape = (body: Json, key?: string) => stack.post("/web/v1/scrape", body, auth(key));

async function act(id: string, actions: Json[], formats = ["markdown"], key?: string): Promise<Json> {
  const r = await stack.post("/web/v1/act", { sessionId: id, actions, formats }, auth(key));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** Open a session on the login page with this profile, sign in, and come to the account page. */
async function signedInSession(
  profile: Json | undefined,
  key?: string,
): Promise<{ id: string; opened: Json }> {
  const opened = await open({ url: `${stack.site.url}/login`, profile, formats: ["controls"] }, key);
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const id = opened.body.sessionId;
  const signed = await act(
    id,
    [{ type: { ref: "#user", text: "alice" } }, { type: { ref: "#password", text: "secret", submit: true } }],
    ["markdown"],
    key,
  );
  assert.equal(signed.success, true, JSON.stringify(signed.actions));
  assert.match(signed.data.markdown, /Signed in as alice/);
  return { id, opened: opened.body };
}

describe("profiles: logins that last", () => {
  test("a login saved as its session closes is seen by a later scrape, with its localStorage and IndexedDB; not by another account", async () => {
    const { id, opened } = await signedInSession({ name: "shop", save: true });
    assert.deepEqual(
      opened.profile,
      { name: "shop", loaded: false, save: true },
      "a new profile starts empty",
    );
    const kept = await act(id, [{ click: { ref: "#dark" } }, { click: { ref: "#save-draft" } }]);
    assert.match(kept.data.markdown, /Theme: dark/);
    assert.match(kept.data.markdown, /Draft: Quarterly report, second pass/);

    const closed = await close(id);
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    assert.equal(closed.body.profile.saved, true, JSON.stringify(closed.body.profile));
    assert.equal(closed.body.profile.name, "shop");
    assert.equal(closed.body.profile.version, 1);
    assert.ok(closed.body.profile.cookies >= 1);

    const seen = await scrape({ url: `${stack.site.url}/account`, profile: { name: "shop" } });
    assert.equal(seen.status, 200, JSON.stringify(seen.body));
    assert.match(seen.body.data.markdown, /Signed in as alice/, "the HttpOnly session cookie came back");
    assert.match(seen.body.data.markdown, /Theme: dark/, "localStorage came back");
    assert.match(seen.body.data.markdown, /Draft: Quarterly report, second pass/, "IndexedDB came back");

    const anonymous = await scrape({ url: `${stack.site.url}/account` });
    assert.match(
      anonymous.body.data.markdown,
      /Please sign in/,
      "without the profile the page is not signed in",
    );

    const other = await stack.newKey(1_000_000);
    const theirs = await scrape({ url: `${stack.site.url}/account`, profile: { name: "shop" } }, other.key);
    assert.equal(theirs.status, 404, JSON.stringify(theirs.body));
    assert.equal(theirs.body.error.code, "profile_not_found");
    assert.equal(theirs.body.error.details[0].field, "profile.name");
    assert.deepEqual((await stack.call("GET", "/web/v1/profiles", auth(other.key))).body, {
      profiles: [],
      next: null,
    });

    const listed = await stack.call("GET", "/web/v1/profiles", auth());
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const shop = listed.body.profiles.find((p: Json) => p.name === "shop");
    assert.equal(shop.version, 1);
    assert.ok(shop.sites.includes("127.0.0.1"), JSON.stringify(shop.sites));
    assert.ok(!JSON.stringify(listed.body).includes("s3ss10n"), "a listing never shows the state itself");
  });

  test("a render through a profile is never cached: a later call without it, maxAge or not, is not signed in", async () => {
    await (async () => {
      const { id } = await signedInSession({ name: "cache-check", save: true });
      assert.equal((await close(id)).body.profile.saved, true);
    })();
    const url = `${stack.site.url}/account?cached=1`;
    const first = await scrape({ url, profile: { name: "cache-check" }, maxAge: 600_000 });
    assert.match(first.body.data.markdown, /Signed in as alice/);
    const again = await scrape({ url, profile: { name: "cache-check" }, maxAge: 600_000 });
    assert.equal(again.body.metadata.cached, undefined, "rendered again, not served from cache");
    const plain = await scrape({ url, maxAge: 600_000 });
    assert.match(plain.body.data.markdown, /Please sign in/);
  });

  test("saveProfile mid-session; two sessions saving one profile: the last wins and is told whose save it replaced", async () => {
    const missing = await open({ url: `${stack.site.url}/login`, profile: { name: "mail" } });
    assert.equal(missing.status, 404, "without save, a profile must exist");
    assert.equal(missing.body.error.code, "profile_not_found");

    const a = await signedInSession({ name: "mail", save: true });
    const savedA = await act(a.id, [{ saveProfile: {} }]);
    assert.equal(savedA.success, true, JSON.stringify(savedA.actions));
    assert.equal(savedA.profile.saved, true);
    assert.equal(savedA.profile.version, 1);

    const b = await open({
      url: `${stack.site.url}/account`,
      profile: { name: "mail", save: true },
      formats: ["markdown"],
    });
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.deepEqual(b.body.profile, { name: "mail", loaded: true, version: 1, save: true });
    assert.match(b.body.data.markdown, /Signed in as alice/, "the second session starts signed in");

    const again = await act(a.id, [{ click: { ref: "#dark" } }, { saveProfile: {} }]);
    assert.equal(again.profile.version, 2);
    assert.equal(again.profile.overwrote, undefined, "a saves over its own save");

    const closedB = await close(b.body.sessionId);
    assert.equal(closedB.body.profile.saved, true);
    assert.equal(closedB.body.profile.version, 3);
    assert.deepEqual(
      { version: closedB.body.profile.overwrote?.version, by: closedB.body.profile.overwrote?.savedBy },
      { version: 2, by: a.id },
      "b loaded version 1, a saved version 2 since: b's save replaced it and says so",
    );
    // a's session ends without a save of its own... it has save: true, so its close saves last.
    const closedA = await close(a.id);
    assert.equal(closedA.body.profile.version, 4);
    assert.equal(closedA.body.profile.overwrote?.savedBy, b.body.sessionId);
  });

  test("a state past PROFILE_MAX_BYTES is refused with profile_too_large; what was saved before stays", async () => {
    // A session opened without a profile saves to one it names.
    const s = await signedInSession(undefined);
    const first = await act(s.id, [{ saveProfile: { name: "big" } }]);
    assert.equal(first.profile.saved, true);
    const big = await act(s.id, [{ click: { ref: "#big" } }, { saveProfile: { name: "big" } }]);
    assert.equal(big.success, false);
    assert.equal(big.actions[1].status, "failed");
    assert.equal(big.actions[1].error.code, "profile_too_large");
    assert.deepEqual([big.profile.saved, big.profile.error.code], [false, "profile_too_large"]);
    assert.match(big.profile.error.message, /more than the 16384 a profile may hold/);
    const closed = await close(s.id);
    assert.equal(closed.body.profile, undefined, "a session without profile.save saves nothing as it closes");
    const listed = await stack.call("GET", "/web/v1/profiles", auth());
    assert.equal(listed.body.profiles.find((p: Json) => p.name === "big").version, 1);
  });

  test("a batch's pages load the profile; keyless and wallet-less callers are refused", async () => {
    const { id } = await signedInSession({ name: "batch", save: true });
    assert.equal((await close(id)).body.profile.saved, true);
    const start = await stack.post(
      "/web/v1/scrape/batch",
      {
        urls: [`${stack.site.url}/account?p=1`, `${stack.site.url}/account?p=2`],
        profile: { name: "batch" },
      },
      auth(),
    );
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await waitFor(
      "the batch to end",
      async () => {
        const r = await stack.call("GET", `${start.body.url}?limit=10`, auth());
        return ["queued", "running"].includes(r.body.status) ? undefined : r.body;
      },
      90_000,
      100,
    );
    assert.equal(done.status, "completed");
    for (const p of done.data) assert.match(p.data.markdown, /Signed in as alice/, p.url);

    const keyless = await stack.postKeyless("/web/v1/scrape", {
      url: `${stack.site.url}/account`,
      profile: { name: "batch" },
    });
    assert.equal(keyless.status, 402, JSON.stringify(keyless.body));
    assert.match(keyless.body.error.message, /profiles belong to an account/);
    const badName = await scrape({ url: `${stack.site.url}/account`, profile: { name: "../etc" } });
    assert.equal(badName.status, 400);
    assert.equal(badName.body.error.details[0].field, "profile.name");
  });

  test("over MCP: web_profiles lists, web_profile_delete deletes, and a deleted profile is not found", async () => {
    const { id } = await signedInSession({ name: "mcp-one", save: true });
    assert.equal((await close(id)).body.profile.saved, true);
    const client = await connectMcp(stack.api.url, auth());
    try {
      const listed = await callTool(client, "web_profiles", {});
      assert.equal(listed.isError, false, JSON.stringify(listed.body));
      assert.ok(listed.body.profiles.some((p: Json) => p.name === "mcp-one"));
      const seen = await callTool(client, "web_scrape", {
        url: `${stack.site.url}/account`,
        profile: { name: "mcp-one" },
      });
      assert.match(seen.body.data.markdown, /Signed in as alice/);
      const deleted = await callTool(client, "web_profile_delete", { name: "mcp-one" });
      assert.deepEqual(deleted.body, { success: true, name: "mcp-one", deleted: true });
      const gone = await callTool(client, "web_scrape", {
        url: `${stack.site.url}/account`,
        profile: { name: "mcp-one" },
      });
      assert.equal(gone.isError, true);
      assert.match(JSON.stringify(gone.body), /profile_not_found/);
    } finally {
      await client.close();
    }
    const again = await stack.call("DELETE", "/web/v1/profiles/mcp-one", auth());
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, "profile_not_found");
  });
});

test("a session with profile.save that ends on its own (maximum lifetime) saves as it ends", async () => {
  // A stack of its own whose sessions live 15 s: long enough to sign in on a busy machine, short enough to wait for.
  const short = await startStack({ slots: 1, jobs: false, env: { SESSION_MAX_LIFETIME_MS: "15000" } });
  try {
    const key = { authorization: `Bearer ${short.key}` };
    const opened = await short.post(
      "/web/v1/session",
      { url: `${short.site.url}/login`, profile: { name: "timed", save: true } },
      key,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const signed = await short.post(
      "/web/v1/act",
      {
        sessionId: opened.body.sessionId,
        actions: [
          { type: { ref: "#user", text: "alice" } },
          { type: { ref: "#password", text: "secret", submit: true } },
        ],
      },
      key,
    );
    assert.equal(signed.body.success, true, JSON.stringify(signed.body.actions));
    const saved = await waitFor(
      "the session to end and its profile to be saved",
      async () => {
        const r = await short.call("GET", "/web/v1/profiles", key);
        return r.body.profiles.find((p: Json) => p.name === "timed");
      },
      60_000,
      200,
    );
    assert.equal(saved.version, 1);
    const seen = await short.post(
      "/web/v1/scrape",
      { url: `${short.site.url}/account`, profile: { name: "timed" } },
      key,
    );
    assert.match(seen.body.data.markdown, /Signed in as alice/);
    const metrics = await (await fetch(`${short.api.url}/metrics`)).text();
    assert.match(metrics, /fleet_profiles_saved_total\{reason="max_lifetime",outcome="saved"\} 1/);
  } finally {
    await short.stop();
  }
});
