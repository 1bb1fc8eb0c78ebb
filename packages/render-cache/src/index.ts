export {
  CACHED_FORMATS,
  cacheKeyFor,
  cacheKeysFor,
  cacheUrl,
  canonicalJson,
  isCacheable,
} from "./cache-key.ts";
export { type Cursor, encodeCursor, parseCursor } from "./cursor.ts";
export {
  applyPart,
  type BudgetDeps,
  budgetDeps,
  countAnswer,
  fitAnswer,
  renderOwner,
  truncation,
} from "./fit-answer.ts";
export {
  type CacheHit,
  type KeptRender,
  RenderCache,
  type RenderCacheOptions,
  responseFromCache,
} from "./render-cache.ts";
