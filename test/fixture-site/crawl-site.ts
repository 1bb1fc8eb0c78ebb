import type { ExtraRoutes } from "./reply.ts";

export const crawlSiteRoutes: ExtraRoutes = () => null;
