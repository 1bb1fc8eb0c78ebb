export { ChromiumMissingError, findChromium } from "./chromium.ts";
export { type BrowserWorker, type BrowserWorkerOptions, startBrowserWorker } from "./worker.ts";
