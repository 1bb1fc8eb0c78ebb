import { after, before } from "node:test";
import { searchRequest } from "@browserfleet/contracts";
import {
  type FakeSearchProviders,
  type RecordedRequest,
  startFakeSearchProviders,
} from "../../../test/helpers/fake-search-providers.ts";
import { runSearch, type SearchProvider } from "../src/index.ts";

export const limits = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), maxBytes: 100_000 });

/**
 * The fake providers for one adapter test file (started before, closed after), a `search` through
 * the adapter, and `traced`: a search with the requests it made to the fake.
 */
export function adapterHarness(
  name: RecordedRequest["provider"],
  adapter: (fake: FakeSearchProviders) => SearchProvider,
) {
  let fake: FakeSearchProviders;
  before(async () => {
    fake = await startFakeSearchProviders();
  });
  after(() => fake?.close());
  const search = (body: Record<string, unknown>, provider?: SearchProvider, ms?: number) =>
    runSearch(provider ?? adapter(fake), searchRequest.parse(body), limits(ms));
  const traced = async (body: Record<string, unknown>) => {
    const before = fake.requestsOf(name).length;
    const result = await search(body);
    return { result, requests: fake.requestsOf(name).slice(before) };
  };
  return { fake: () => fake, search, traced };
}
