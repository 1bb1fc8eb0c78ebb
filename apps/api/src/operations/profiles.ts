import { profilesQuery, profilesView } from "@browserfleet/contracts";
import { parseQuery } from "../validate.ts";
import { requireKey } from "./account-access.ts";
import { defineOperation, STATUS } from "./operation.ts";

export const profiles = defineOperation({
  name: "profiles",
  method: "GET",
  path: "/web/v1/profiles",
  summary: "The account's saved browser profiles (logins a session saved), by name, without their contents",
  request: profilesQuery,
  query: profilesQuery,
  response: profilesView,
  free: { tags: ["profiles"], auth: "key", ok: "The account's profiles", errors: [401, 429] },
  tool: {
    name: "web_profiles",
    title: "List saved browser profiles",
    annotations: STATUS,
    description:
      "List this account's saved browser profiles: each one's name, size, cookie count and the sites it holds logins or storage for. Give a name as profile: { name } to web_scrape, web_session_open, web_batch_scrape or web_crawl to browse logged in. Free; needs an API key.",
  },
  fromHttp: (http) => http.query as unknown,
  run: async (ctx, query, { caller }) => {
    const auth = requireKey(caller);
    const q = parseQuery(profilesQuery, query);
    // One more than asked tells whether there is a next page.
    const rows = await ctx.profiles.list(auth.accountId, q.limit + 1, q.cursor);
    const page = rows.slice(0, q.limit);
    return {
      profiles: page.map((p) => ({
        name: p.name,
        version: p.version,
        bytes: p.bytes,
        cookies: p.cookies,
        sites: p.sites,
        createdAt: p.createdAt.toISOString(),
        updatedAt: p.updatedAt.toISOString(),
      })),
      next: rows.length > q.limit ? (page.at(-1)?.name ?? null) : null,
    };
  },
});
