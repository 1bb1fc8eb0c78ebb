export * from "./accounts.ts";
export * from "./ids.ts";
export * from "./keys.ts";
export * from "./leases.ts";
export * from "./ledger.ts";
export * from "./usage.ts";
export * from "./views.ts";
export * from "./wallet.ts";
