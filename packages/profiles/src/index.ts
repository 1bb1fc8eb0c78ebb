export { type KeyRing, keyRingFrom, type ProfileKey, parseKeyRing } from "./key-ring.ts";
export { open, seal, sealedWith, UnknownProfileKey } from "./seal.ts";
export { type StateSummary, summarize } from "./state.ts";
export {
  type LoadedProfile,
  type ProfileInfo,
  ProfileLimitReached,
  ProfileStore,
  ProfileTooLarge,
  profileStoreFrom,
  type SavedProfile,
  type SaveInput,
} from "./store.ts";
