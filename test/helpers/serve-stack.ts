/**
 * Start the local test stack (NATS, PostgreSQL, one Chromium worker, the api, the fixture site) and keep it
 * running until killed: prints one JSON line with the api's URL, a funded key, an empty key and the fixture
 * site's URL. For running outside clients (the OpenAPI fuzzer) against a real api by hand.
 */
import { startStack } from "./stack.ts";

const stack = await startStack({ env: JSON.parse(process.env.STACK_ENV ?? "{}") });
const empty = await stack.newKey(0);
console.log(
  JSON.stringify({ url: stack.api.url, key: stack.key, emptyKey: empty.key, site: stack.site.url }),
);
const stop = () => {
  stack.stop().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
