/**
 * Names the init scripts give their state in every frame. Non-enumerable window properties, so page
 * script that lists the window's keys does not see them.
 */

/** The settle bookkeeping (entries/settle-init.ts); read from Playwright's world through an event of this name. */
export const SETTLE_GLOBAL = "__browserfleetSettle";

/** How many viewport hooks (scroll listeners, observers) the page set (entries/scroll-hooks-init.ts). */
export const SCROLL_HOOKS_GLOBAL = "__fleetScrollHooks";
