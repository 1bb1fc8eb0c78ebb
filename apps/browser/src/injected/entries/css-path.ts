import { cssPathOf } from "../lib/css-path.ts";

/** Run on an element: a CSS selector that finds it again. */
export default cssPathOf;
