/**
 * What answers an agent can afford cost us (issue: token counts, budgets, files by link):
 *
 * 1. Counting tokens per scrape, against the scrape itself: the median time of counting every text format
 *    of a fresh answer (o200k_base, nothing remembered) over the median of warm scrapes of the same page,
 *    measured in the same run. Goal: at most 0.02.
 * 2. An MCP answer with a full-page screenshot, inline base64 (what every MCP answer was before) against
 *    the same answer with the file as a resource link. Goal: at least 50 times smaller.
 *
 *   npm run bench:token-count -- [--scrapes 15]
 */
import { parseArgs } from "node:util";
import { countTokens, textOf } from "@browserfleet/tokens";
import { connectMcp } from "../../test/helpers/mcp-client.ts";
import { startStack } from "../../test/helpers/stack.ts";

const { values } = parseArgs({ options: { scrapes: { type: "string", default: "15" } } });
const scrapes = Number(values.scrapes);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

// Inline images of any size over MCP, as before resource links: the baseline of part 2.
const stack = await startStack({ slots: 1, env: { MCP_INLINE_IMAGE_MAX_BYTES: "1000000000" } });
try {
  console.log("# 1. counting tokens per scrape (formats markdown, links; o200k_base)");
  for (const path of ["/article", "/manual"]) {
    const body = { url: `${stack.site.url}${path}`, formats: ["markdown", "links"] };
    const times: number[] = [];
    let last: Record<string, unknown> = {};
    for (let i = 0; i < scrapes + 2; i++) {
      const t = performance.now();
      const r = await stack.post("/web/v1/scrape", body);
      if (r.status !== 200) throw new Error(`scrape failed: ${JSON.stringify(r.body)}`);
      if (i >= 2) times.push(performance.now() - t);
      last = r.body.data;
    }
    const counting: number[] = [];
    let tokens = 0;
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      tokens = 0;
      for (const v of Object.values(last)) tokens += countTokens(textOf(v));
      counting.push(performance.now() - t);
    }
    const scrape = median(times);
    const count = median(counting);
    console.log(
      `${path}: ${tokens} tokens; warm scrape median ${scrape.toFixed(1)} ms, counting median ${count.toFixed(2)} ms`,
    );
    console.log(`ratio count/scrape at the median: ${(count / scrape).toFixed(4)} (goal at most 0.02)`);
  }

  console.log("# 2. an MCP answer with a full-page screenshot");
  const client = await connectMcp(stack.api.url, { authorization: `Bearer ${stack.key}` });
  const size = async (binaryAs: string) => {
    const r = await client.callTool({
      name: "web_scrape",
      arguments: {
        url: `${stack.site.url}/manual`,
        formats: ["screenshot"],
        screenshot: { fullPage: true },
        binaryAs,
      },
    });
    if (r.isError) throw new Error(JSON.stringify(r.content).slice(0, 300));
    return Buffer.byteLength(JSON.stringify(r));
  };
  const inline = await size("base64");
  const linked = await size("url");
  await client.close();
  console.log(`answer with the screenshot inline: ${inline} bytes; as a resource link: ${linked} bytes`);
  console.log(`ratio inline/link answer size: ${(inline / linked).toFixed(1)} (goal at least 50)`);
} finally {
  await stack.stop();
}
