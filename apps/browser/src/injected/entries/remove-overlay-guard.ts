import { removeClickGuard } from "../lib/overlays/click-target.ts";

/** Ends the navigation guard the overlay pass set before a click (see lib/click-target.ts). */
export default removeClickGuard;
