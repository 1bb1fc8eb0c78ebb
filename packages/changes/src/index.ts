export { changedPaths, compare, DIFF_TIMEOUT_MS, type Snapshot } from "./compare.ts";
export { completeChanges, snapshotUrl } from "./complete.ts";
export { PageSnapshots } from "./snapshots.ts";
