import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export class ChromiumMissingError extends Error {}

/** CHROMIUM_PATH, else Debian's chromium, else Playwright's own install. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new ChromiumMissingError(`CHROMIUM_PATH points at ${fromEnv}, which does not exist.`);
    return fromEnv;
  }
  for (const candidate of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (existsSync(candidate)) return candidate;
  }
  try {
    const own = chromium.executablePath();
    if (own && existsSync(own)) return own;
  } catch {
    // Playwright has no browser of its own installed.
  }
  throw new ChromiumMissingError(
    "Chromium was not found. Install it (Debian: apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary.",
  );
}

const ARGS = [
  "--no-sandbox",
  "--disable-dev-shm-usage",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--mute-audio",
  "--hide-scrollbars",
];

/** Keeps one Chromium alive: relaunches it when it dies, and counts the restarts. */
export class ChromiumKeeper {
  private current: Promise<Browser> | undefined;
  private closing = false;
  restarts = 0;

  constructor(
    private readonly executablePath: string,
    private readonly extraArgs: string[],
    private readonly onRestart: () => void = () => {},
  ) {}

  browser(): Promise<Browser> {
    if (!this.current) this.current = this.launch();
    return this.current;
  }

  private async launch(): Promise<Browser> {
    const attempt = chromium.launch({
      executablePath: this.executablePath,
      args: [...ARGS, ...this.extraArgs],
      headless: true,
    });
    attempt.catch(() => {
      this.current = undefined;
    });
    const browser = await attempt;
    browser.on("disconnected", () => {
      if (this.closing) return;
      this.current = undefined;
      this.restarts++;
      this.onRestart();
    });
    return browser;
  }

  async close(): Promise<void> {
    this.closing = true;
    const b = await this.current?.catch(() => undefined);
    await b?.close().catch(() => {});
  }
}
