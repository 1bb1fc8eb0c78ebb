import type { ExtraRoutes } from "./reply.ts";

export const documentsRoutes: ExtraRoutes = () => null;
