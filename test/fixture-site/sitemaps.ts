import type { ExtraRoutes } from "./reply.ts";

export const sitemapsRoutes: ExtraRoutes = () => null;
