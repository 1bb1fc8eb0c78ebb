export { type Part, type Position, readPart } from "./budget.ts";
export { countTokens, countValueTokens, TOKEN_ENCODING, textOf } from "./count.ts";
export { type Cuts, htmlCuts, lineCuts, markdownCuts } from "./cut-points.ts";
