import { scrollPanels } from "../lib/scroll-panels.ts";

/** In the page (through evaluateHandle): its scrolling panels, largest first (lib/scroll-panels.ts). */
export default function lazyPanels(): Element[] {
  return scrollPanels();
}
