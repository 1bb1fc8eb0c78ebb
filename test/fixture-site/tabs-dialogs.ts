/**
 * Pages that do what real sites do with dialogs and tabs: a delete button behind confirm(), a greeting
 * asked with prompt(), a notice by alert(), an editor that warns before leaving (beforeunload), a report
 * opened in a new tab by a target=_blank link and by window.open, a page that closes its own window, and
 * one that opens more windows than a session keeps.
 *
 *   /dialogs           alert, confirm and prompt buttons; #status says what the page got back
 *   /leave             an editor with a beforeunload handler once something is typed
 *   /tabs              a target=_blank link, a window.open button, one that opens 10 windows, and one
 *                      that opens a window on a blocked address (?blocked=<origin>)
 *   /dialog-on-load    asks confirm() and prompt() while it loads and writes down the answers
 *   /tab-target        the page the new tabs show (?from=link|script); a button changes it, another closes it
 */
import type { ExtraRoutes, Reply } from "./reply.ts";

const page = (title: string, body: string): Reply => ({
  status: 200,
  type: "text/html; charset=utf-8",
  body: `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`,
});

const DIALOGS = `<h1>Items</h1>
<p id="status">Nothing yet</p>
<button id="notice" type="button">Show notice</button>
<button id="delete" type="button">Delete item</button>
<button id="name" type="button">Set name</button>
<button id="long" type="button">Long notice</button>
<button id="two" type="button">Two questions</button>
<button id="many" type="button">Many notices</button>
<script>
const status = document.getElementById("status");
document.getElementById("notice").onclick = () => { alert("Saved: your changes are kept"); status.textContent = "Notice seen"; };
document.getElementById("delete").onclick = () => {
  status.textContent = confirm("Delete the item? This cannot be undone.") ? "Item deleted" : "Item kept";
};
document.getElementById("name").onclick = () => {
  const n = prompt("What is your name?", "guest");
  status.textContent = n === null ? "No name given" : "Hello, " + n;
};
document.getElementById("long").onclick = () => { alert("x".repeat(5000)); status.textContent = "Long notice seen"; };
document.getElementById("many").onclick = () => {
  for (let i = 1; i <= 25; i++) alert("Notice " + i);
  status.textContent = "All notices seen";
};
document.getElementById("two").onclick = () => {
  const a = confirm("First?");
  const b = confirm("Second?");
  status.textContent = "First " + (a ? "yes" : "no") + ", second " + (b ? "yes" : "no");
};
</script>`;

const LEAVE = `<h1>Editor</h1>
<label>Draft <input id="draft" type="text"></label>
<p id="status">Clean</p>
<script>
document.getElementById("draft").addEventListener("input", () => {
  document.getElementById("status").textContent = "Unsaved changes";
  window.onbeforeunload = (e) => { e.preventDefault(); e.returnValue = "You have unsaved changes"; return "You have unsaved changes"; };
});
</script>`;

const tabs = (blocked: string | null) => `<h1>Reports</h1>
<p id="status">Home</p>
<a href="/tab-target?from=link" target="_blank">Open report in new tab</a>
<button id="win" type="button">Open report window</button>
<button id="many" type="button">Open ten windows</button>
${blocked ? `<button id="blocked" type="button">Open internal window</button>` : ""}
<script>
document.getElementById("win").onclick = () => { window.open("/tab-target?from=script", "_blank"); };
document.getElementById("many").onclick = () => { for (let i = 0; i < 10; i++) window.open("/tab-target?from=many" + i, "_blank"); };
${blocked ? `document.getElementById("blocked").onclick = () => { window.open(${JSON.stringify(`${blocked}/tab-target?from=blocked`)}, "_blank"); };` : ""}
</script>`;

const TARGET = (from: string) => `<h1>Report from ${from}</h1>
<p id="status">Report open</p>
<button id="confirm" type="button">Confirm report</button>
<button id="close" type="button">Close this window</button>
<script>
document.getElementById("confirm").onclick = () => { document.getElementById("status").textContent = "Report confirmed"; };
document.getElementById("close").onclick = () => { window.close(); };
</script>`;

export const tabsDialogsRoutes: ExtraRoutes = (path, query) => {
  switch (path) {
    case "/dialogs":
      return page("Items", DIALOGS);
    case "/dialog-on-load":
      return page(
        "Asked on load",
        `<h1>Asked on load</h1><p id="status"></p><script>
const ok = confirm("Allow notifications?");
const name = prompt("Your city?", "Paris");
document.getElementById("status").textContent = "confirm " + (ok ? "accepted" : "dismissed") + ", prompt " + (name === null ? "dismissed" : name);
</script>`,
      );
    case "/leave":
      return page("Editor", LEAVE);
    case "/tabs":
      return page("Reports", tabs(query.get("blocked")));
    case "/tab-target": {
      const from = (query.get("from") ?? "nowhere").replace(/[^a-z0-9]/gi, "");
      return page(`Report ${from}`, TARGET(from));
    }
    default:
      return null;
  }
};
