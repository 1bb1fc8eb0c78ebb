import { z } from "zod";
import { defineOperation } from "./operation.ts";
import { providerPath, search, searchProviders, searchTool } from "./search.ts";

const providerList = z.object({
  route: z.string(),
  providers: z.array(
    z.object({
      name: z.string(),
      about: z.string(),
      maxResults: z.int(),
      path: z.string(),
      mcpTool: z.string(),
    }),
  ),
});

/** GET /web/v1/search: the providers this deployment configured, each with its path and MCP tool. */
export const searchProviderList = defineOperation({
  name: "searchProviders",
  method: "GET",
  path: "/web/v1/search",
  summary: "The search providers this deployment configured, each with its path and MCP tool",
  response: providerList,
  free: { tags: ["self-description"], ok: "Providers", errors: [], cacheable: true },
  fromHttp: () => undefined,
  run: async (ctx) => ({
    route: search.path,
    providers: [...searchProviders(ctx).values()].map((p) => ({
      name: p.name,
      about: p.about,
      maxResults: p.maxResults,
      path: providerPath(p.name),
      mcpTool: searchTool(p),
    })),
  }),
});
