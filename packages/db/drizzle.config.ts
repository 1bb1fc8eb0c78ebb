import { defineConfig } from "drizzle-kit";

/** `npm run db:generate` writes a new SQL migration from changes to src/schema.ts. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema.ts",
  out: "./migrations",
});
