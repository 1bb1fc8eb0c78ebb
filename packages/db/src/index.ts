export * from "./connect.ts";
export * from "./local-postgres.ts";
export * from "./migrate.ts";
export * from "./postgres-user.ts";
export * from "./prepared.ts";
export * from "./resolve.ts";
export * as schema from "./schema.ts";
