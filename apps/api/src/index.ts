export { type RunningApi, startApi } from "./server.ts";
