export { cacheKeyFor, cacheUrl, canonicalJson, isCacheable } from "./cache-key.ts";
export {
  type CacheHit,
  type KeptRender,
  RenderCache,
  type RenderCacheOptions,
  responseFromCache,
} from "./render-cache.ts";
