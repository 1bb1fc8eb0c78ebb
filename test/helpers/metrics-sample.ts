/** The sum of a Prometheus sample over the series whose labels include `labels`; NaN when there is none. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let seen = false;
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([0-9.eE+-]+|NaN)$/.exec(line);
    if (!m || m[1] !== name) continue;
    if (Object.entries(labels).every(([k, v]) => (m[2] ?? "").includes(`${k}="${v}"`))) {
      sum += Number(m[3]);
      seen = true;
    }
  }
  return seen ? sum : Number.NaN;
}
