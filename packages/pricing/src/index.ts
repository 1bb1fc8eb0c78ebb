export * from "./prices.ts";
export * from "./rule.ts";
