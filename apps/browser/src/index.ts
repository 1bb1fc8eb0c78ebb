export { ChromiumMissingError, findChromium } from "./chromium.ts";
export { slotsSetBy } from "./limits/admission.ts";
export { describeSandbox, SandboxUnavailableError } from "./sandbox.ts";
export {
  type BrowserWorker,
  type BrowserWorkerOptions,
  startBrowserWorker,
  workerOptionsFrom,
} from "./worker.ts";
