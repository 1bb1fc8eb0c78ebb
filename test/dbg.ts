import { chromium } from "playwright-core";
import { startFixtureSite } from "./fixture-site/server.ts";

const site = await startFixtureSite();
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const ctx = await b.newContext();
await ctx.route("**/*", async (route) => {
  const r = route.request();
  console.log("route:", r.resourceType(), r.url(), "redirectedFrom:", r.redirectedFrom()?.url());
  if (r.url().includes("127.0.0.2")) return route.abort("blockedbyclient");
  if (r.resourceType() !== "document") return route.continue();
  const response = await route.fetch({ maxRedirects: 0 });
  console.log(" fetched", response.status(), response.headers().location);
  return route.fulfill({ response });
});
const p = await ctx.newPage();
p.on("request", (r) => console.log("request event:", r.url()));
try {
  await p.goto(`${site.url}/redirect-to?url=${encodeURIComponent(`${site.url}/redirect/1`)}`);
  console.log("final:", p.url());
  await p.goto(`${site.url}/redirect-to?url=${encodeURIComponent("http://127.0.0.2:9/x")}`);
} catch (e) {
  console.log("ERR", (e as Error).message.split("\n")[0]);
}
await b.close();
await site.close();
