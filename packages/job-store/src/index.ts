export * from "./dispatch.ts";
export * from "./jobs.ts";
export * from "./results.ts";
export * from "./view.ts";
