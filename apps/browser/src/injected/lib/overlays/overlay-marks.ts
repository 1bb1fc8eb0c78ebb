/*
 * Marks clearOverlays (page/overlays.ts) leaves in the page, all carrying the call's token as value.
 */

/** An element the overlay pass hid. */
export const HIDDEN_MARK = "data-bf-overlay-hidden";
/** html/body whose scroll lock was undone, or content made non-inert again. */
export const UNLOCKED_MARK = "data-bf-overlay-unlocked";
/** A consent container already clicked in (never clicked twice; hidden if it stays). */
export const DONE_MARK = "data-bf-overlay-done";
/** The button about to be clicked (removed by the next pass). */
export const TARGET_MARK = "data-bf-overlay-target";

/** Symbol.for key of the window slot holding the click guard's undo function. */
export const GUARD_KEY = "browserfleet.overlays.guard";
/** Symbol.for key of the window slot holding the last marked target. */
export const LAST_TARGET_KEY = "browserfleet.overlays.target";
