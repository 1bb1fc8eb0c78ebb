export { fileStore } from "./file-store.ts";
export { type S3StoreOptions, s3Store } from "./s3-store.ts";
export { newSignedName, type SignedName, signedNameFor, urlOf, verifySignedName } from "./signed-url.ts";
export {
  type ArtifactStore,
  CONTENT_TYPES,
  hourAfter,
  hourName,
  hourStart,
  KEY_PATTERN,
  type StoredFile,
} from "./store.ts";
