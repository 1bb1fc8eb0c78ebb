export { cacheKeyFor, canonicalJson, isCacheable, normalizeUrl } from "./cache-key.ts";
export { type CacheHit, RenderCache, type RenderCacheOptions } from "./render-cache.ts";
