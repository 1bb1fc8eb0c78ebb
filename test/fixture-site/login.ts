/**
 * A site with a login, as real ones keep it: the server's session in an HttpOnly cookie, the reader's
 * settings in localStorage, drafts in IndexedDB. What a saved profile must carry to come back signed in.
 *
 *   /login      a sign-in form (user, password); signing in goes to /signin
 *   /signin     ?user=&password=: right (alice / secret) sets `sid` (HttpOnly, a day) and sends to /account;
 *               wrong answers 401 with the form again
 *   /account    "Signed in as alice" with a valid sid, else "Please sign in"; its script shows the theme
 *               kept in localStorage and the draft kept in IndexedDB, and its buttons set them (one
 *               keeps a 40,000-character offline copy in localStorage)
 *   /signout    clears sid
 */
import type { ExtraRoutes, Reply } from "./reply.ts";

/** The one session the site knows; a cookie of any other value is no session. */
const SID = "s3ss10n-alice-7f2c";

const page = (title: string, body: string, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  type: "text/html; charset=utf-8",
  headers,
  body: `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`,
});

const FORM = `<h1>Sign in</h1>
<form action="/signin" method="get">
<label>User <input name="user" id="user" autocomplete="username"></label>
<label>Password <input name="password" id="password" type="password"></label>
<button type="submit" id="go">Sign in</button>
</form>`;

const ACCOUNT = (signedIn: boolean) => `<h1>${signedIn ? "Signed in as alice" : "Please sign in"}</h1>
<p id="theme">Theme: (none)</p>
<p id="draft">Draft: (none)</p>
<button id="dark" type="button">Dark theme</button>
<button id="save-draft" type="button">Keep draft</button>
<button id="big" type="button">Keep offline copy</button>
<script>
const show = () => {
  document.getElementById("theme").textContent = "Theme: " + (localStorage.getItem("theme") || "(none)");
};
show();
document.getElementById("dark").onclick = () => { localStorage.setItem("theme", "dark"); show(); };
// What an offline-first app caches: far more than a login needs.
document.getElementById("big").onclick = () => { localStorage.setItem("offline", "x".repeat(40000)); };
const db = indexedDB.open("notes", 1);
db.onupgradeneeded = () => db.result.createObjectStore("drafts");
db.onsuccess = () => {
  const read = () => {
    const get = db.result.transaction("drafts").objectStore("drafts").get("current");
    get.onsuccess = () => { document.getElementById("draft").textContent = "Draft: " + (get.result || "(none)"); };
  };
  read();
  document.getElementById("save-draft").onclick = () => {
    const tx = db.result.transaction("drafts", "readwrite");
    tx.objectStore("drafts").put("Quarterly report, second pass", "current");
    tx.oncomplete = read;
  };
};
</script>`;

const sidOf = (cookie: string) => /(?:^|;\s*)sid=([^;]*)/.exec(cookie)?.[1];

export const loginRoutes: ExtraRoutes = (path, query, _origin, cookie) => {
  switch (path) {
    case "/login":
      return page("Sign in", FORM);
    case "/signin":
      if (query.get("user") !== "alice" || query.get("password") !== "secret")
        return page("Sign in", `<p id="error">Wrong user or password</p>${FORM}`, 401);
      return {
        status: 302,
        headers: {
          Location: "/account",
          "Set-Cookie": `sid=${SID}; Path=/; Max-Age=86400; HttpOnly; SameSite=Lax`,
        },
      };
    case "/account":
      return page("Account", ACCOUNT(sidOf(cookie) === SID));
    case "/signout":
      return page("Signed out", "<h1>Signed out</h1>", 200, { "Set-Cookie": "sid=; Path=/; Max-Age=0" });
    default:
      return null;
  }
};
