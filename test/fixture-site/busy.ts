/**
 * A page whose script hogs the main thread after a click, as a heavy client-side report does when it
 * builds a large table synchronously: the click itself is handled at once, then the page answers nothing
 * (no evaluate, no title, no screenshot) until the work ends.
 *
 *   /busy-report   a "Build report" button; a moment after the click the page is busy for ?ms= (default
 *                  20000, at most 60000)
 */
import type { ExtraRoutes } from "./reply.ts";

export const busyRoutes: ExtraRoutes = (path, query) => {
  if (path !== "/busy-report") return null;
  const raw = Number(query.get("ms") ?? 20_000);
  const ms = Number.isFinite(raw) ? Math.min(Math.max(0, Math.floor(raw)), 60_000) : 20_000;
  return {
    status: 200,
    type: "text/html; charset=utf-8",
    body: `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Reports</title></head><body>
<h1>Reports</h1><p id="status">Ready</p><button id="build" type="button">Build report</button>
<script>
document.getElementById("build").onclick = () => {
  document.getElementById("status").textContent = "Building";
  setTimeout(() => { const end = Date.now() + ${ms}; while (Date.now() < end) {} }, 300);
};
</script></body></html>`,
  };
};
