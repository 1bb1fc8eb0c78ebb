export { type AllowList, EMPTY_ALLOW_LIST, isAddressAllowListed, parseAllowList } from "./allowlist.ts";
export { type CheckUrlOptions, type CheckUrlResult, checkUrl, type LookupFn } from "./check.ts";
export { type AddressRange, type AddressVerdict, classifyAddress } from "./classify.ts";
export { type BlockedRange, SsrfError, type SsrfErrorCode } from "./errors.ts";
export { createGuard, type Guard, type GuardOptions } from "./guard.ts";
