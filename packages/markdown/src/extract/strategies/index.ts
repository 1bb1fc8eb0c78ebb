/** Each page type's strategy (see strategy.ts), by type. */
import type { PageType } from "../page-type.ts";
import { article } from "./article.ts";
import { collection } from "./collection.ts";
import { documentation } from "./documentation.ts";
import { forum } from "./forum.ts";
import { listing } from "./listing.ts";
import { product } from "./product.ts";
import { service } from "./service.ts";
import type { PageStrategy } from "./strategy.ts";

export type { PageStrategy } from "./strategy.ts";

export const STRATEGIES: Readonly<Record<PageType, PageStrategy>> = {
  article,
  documentation,
  forum,
  product,
  collection,
  listing,
  service,
};
