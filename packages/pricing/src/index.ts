export * from "./prices.ts";
export * from "./quote.ts";
export * from "./rules.ts";
