export { ChromiumMissingError, findChromium } from "./chromium.ts";
export {
  type BrowserWorker,
  type BrowserWorkerOptions,
  startBrowserWorker,
  workerOptionsFrom,
} from "./worker.ts";
