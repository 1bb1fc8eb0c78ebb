export * from "./common.ts";
export * from "./errors.ts";
export * from "./jobs.ts";
export * from "./live-view.ts";
export * from "./payment-terms.ts";
export * from "./scrape.ts";
export * from "./search.ts";
export * from "./session.ts";
export * from "./tasks.ts";
export * from "./text.ts";

export const INTERFACE_VERSION = "1.0.1";
export * from "./account.ts";
export * from "./egress.ts";
export * from "./places.ts";
export * from "./profiles.ts";
export * from "./render-changes.ts";
export * from "./webhook-events.ts";
export * from "./webhook-spec.ts";
