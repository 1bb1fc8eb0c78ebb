import { z } from "zod";

/** The changes format (not an act's changes, session.ts): the page against its previous render by the same account. */
export const renderChanges = z
  .object({
    status: z
      .enum(["new", "same", "changed", "removed"])
      .describe(
        "new: no earlier render of this URL by this account is kept; same: the same markdown (and json, when asked both times); changed; removed: it answers 404 or 410 now and did not before",
      ),
    previousAt: z.string().nullable().describe("When the render compared with was made"),
    diff: z
      .string()
      .nullable()
      .describe(
        "A unified diff of the markdown, previous to current (3 lines of context); null unless changed",
      ),
    diffOmitted: z
      .literal("too_large")
      .optional()
      .describe("The markdown changed too much for a diff to be found in time; status still says changed"),
    json: z
      .object({ changed: z.array(z.string()).describe("Paths (a.b, items.2.price) whose values differ") })
      .optional()
      .describe("When json was asked for this time and the last: which fields changed"),
  })
  .meta({ description: "data.changes: the page against this account's previous render of the same URL" });
export type RenderChanges = z.infer<typeof renderChanges>;
