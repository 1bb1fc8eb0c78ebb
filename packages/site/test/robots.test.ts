import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DISALLOW_ALL, robotsRules } from "../src/index.ts";

const ROBOTS = `# comment
User-agent: BrowserfleetBot
Disallow: /no-bots
Crawl-delay: 2.5

User-agent: *
Disallow: /private
Allow: /private/public

Sitemap: https://example.com/sitemap_index.xml
Sitemap: /relative-sitemap.xml
Sitemap: https://example.com/sitemap_index.xml#again
`;

describe("robotsRules", () => {
  const rules = robotsRules("https://example.com/robots.txt", ROBOTS);

  it("answers per user agent, longest match first", () => {
    assert.equal(rules.isAllowed("https://example.com/private/x", "OtherBot/1.0"), false);
    assert.equal(rules.isAllowed("https://example.com/private/public/y", "OtherBot/1.0"), true);
    assert.equal(rules.isAllowed("https://example.com/article", "OtherBot/1.0"), true);
    // Its own group replaces the * group.
    assert.equal(rules.isAllowed("https://example.com/no-bots/a", "BrowserfleetBot/1.0 (+https://x)"), false);
    assert.equal(rules.isAllowed("https://example.com/private/x", "BrowserfleetBot/1.0"), true);
  });

  it("does not judge other origins", () => {
    assert.equal(rules.isAllowed("https://other.example/private", "OtherBot"), true);
  });

  it("gives the crawl delay in ms and the sitemaps absolute and de-duplicated", () => {
    assert.equal(rules.crawlDelayMs("BrowserfleetBot"), 2500);
    assert.equal(rules.crawlDelayMs("OtherBot"), undefined);
    assert.deepEqual(rules.sitemaps, [
      "https://example.com/sitemap_index.xml",
      "https://example.com/relative-sitemap.xml",
    ]);
  });

  it("allows everything without a body, and nothing with DISALLOW_ALL", () => {
    const none = robotsRules("https://example.com/robots.txt", undefined);
    assert.equal(none.isAllowed("https://example.com/private", "Bot"), true);
    assert.deepEqual(none.sitemaps, []);
    assert.equal(none.crawlDelayMs("Bot"), undefined);
    const all = robotsRules("https://example.com/robots.txt", DISALLOW_ALL);
    assert.equal(all.isAllowed("https://example.com/", "Bot"), false);
  });
});
