import { z } from "zod";
import { defineOperation } from "./operation.ts";

const priceTable = z.object({
  currency: z.literal("USD"),
  operations: z.array(
    z.object({
      method: z.literal("POST"),
      path: z.string(),
      summary: z.string(),
      price: z.string().describe("In a few words"),
      rule: z.string().describe("The whole rule: what each part costs, and what is never charged"),
    }),
  ),
  free: z.array(z.string()).describe("Routes that cost nothing"),
});

/** GET /web/v1/prices: every priced operation's price, from the same rules that quote and charge calls. */
export const prices = defineOperation({
  name: "prices",
  method: "GET",
  path: "/web/v1/prices",
  summary: "The price table: what each priced operation costs, from the rules that quote and charge calls",
  response: priceTable,
  free: { tags: ["self-description"], ok: "Prices", errors: [], cacheable: true },
  fromHttp: () => undefined,
  run: async () => {
    // The operations registry lists this one too: read it once it is loaded.
    const { OPERATIONS } = await import("./index.ts");
    return {
      currency: "USD" as const,
      operations: OPERATIONS.flatMap((op) =>
        op.priced
          ? [
              {
                method: "POST" as const,
                path: op.path,
                summary: op.summary,
                price: op.priced.price.brief,
                rule: op.priced.price.words,
              },
            ]
          : [],
      ),
      free: OPERATIONS.filter((op) => !op.priced).map((op) => `${op.method} ${op.path}`),
    };
  },
});
