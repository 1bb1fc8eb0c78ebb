import { loadOperatorConfig } from "./config.ts";
import { startOperator } from "./operator.ts";

let config: ReturnType<typeof loadOperatorConfig>;
try {
  config = loadOperatorConfig();
} catch (err) {
  console.error(`browserfleet-operator: bad configuration: ${(err as Error).message}`);
  process.exit(1);
}
try {
  const op = await startOperator(config, {
    onFatal: (why) => {
      console.error(`browserfleet-operator: ${why}; exiting`);
      process.exit(1);
    },
  });
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.once(sig, async () => {
      console.log(`browserfleet-operator: ${sig}, stopping`);
      const force = setTimeout(() => process.exit(0), 10_000);
      force.unref();
      await op.stop();
      process.exit(0);
    });
  }
} catch (err) {
  console.error(`browserfleet-operator failed to start: ${(err as Error).message}`);
  process.exit(1);
}
