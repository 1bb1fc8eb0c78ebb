/**
 * Every time window the worker waits on a page by, in one place, each with why it is that long. Two
 * questions are asked of a page, and they get different answers:
 * - after a navigation (a scrape, a session's open): has the page finished building its content? The page
 *   is watched (page/settle.ts) and taken as built once nothing has happened for PAGE_QUIET_MS;
 * - after an action (an act): has what the action set going finished? Its own effects happen at once or a
 *   fetch later, so the page needs only ACT_QUIET_MS of calm, and requests the action started are waited
 *   for up to ACTION_REQUESTS_MS (session/settle.ts).
 */

/** A page is built once it has gone this long without activity (DOM changes, scripts, API answers, frames) after DOMContentLoaded: long enough for a script's next step, short enough to add little to every scrape. */
export const PAGE_QUIET_MS = 150;
/** A fetch, XHR, script or frame document older than this is taken to never end (a long-poll, a hang). */
export const API_YOUNG_MS = 2_500;
/** The same for images, stylesheets and fonts: what holds `load` back, but rarely the content. */
export const SUBRESOURCE_YOUNG_MS = 1_000;

/** Calm enough after an act: its own changes happen at once, a fetch's result soon after. */
export const ACT_QUIET_MS = 80;
/** After an act, the longest to wait for what it set going: an agent waits for every act. */
export const ACT_SETTLE_MAX_MS = 3_000;
/**
 * After an act's actions, the longest its settle, formats and tab listing may take before the act is
 * answered without its formats (each named in errors as a timeout): ACT_SETTLE_MAX_MS plus a render's
 * worst usual case, and well inside the 15 s the api waits past the act's budget (apps/api actWaitMs).
 */
export const ACT_FINISH_MS = 9_000;
/** The longest to wait for the page to run its handlers after an action (a busy or frozen page). */
export const ACTION_GRACE_MS = 100;
/** The longest to wait for the requests an action started to finish (a slow API answer the page waits for). */
export const ACTION_REQUESTS_MS = 2_000;
/** The longest to wait for a navigation an action started to reach `load`. */
export const ACTION_LOAD_MS = 10_000;
/** After a navigation request finished without a commit (204, download), how long to wait for one. */
export const COMMIT_AFTER_FINISH_MS = 300;
