export * from "./allowance-rules.ts";
export * from "./allowance-store.ts";
export * from "./client-address.ts";
