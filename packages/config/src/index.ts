import { z } from "zod";

const intFrom = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/** Every setting comes from the environment; this schema is its only description (README mirrors it). */
export const configSchema = z.object({
  PORT: intFrom(8080),
  HOST: z.string().default("0.0.0.0"),
  NATS_URL: z.string().optional(),
  DATA_DIR: z.string().default(".data"),
  BROWSER_SLOTS: intFrom(4, 1),
  BROWSER_METRICS_PORT: intFrom(9464),
  TASK_QUEUE_MAX: intFrom(1000, 1),
  TASK_ACK_WAIT_MS: intFrom(60_000, 1000),
  SCRAPE_TIMEOUT_MS: intFrom(90_000, 1000),
  MAX_BODY_BYTES: intFrom(10 * 1024 * 1024, 1024),
  FLEET_ALLOW_PRIVATE: z.string().optional(),
  WORKER_ID: z.string().optional(),
});
export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}
