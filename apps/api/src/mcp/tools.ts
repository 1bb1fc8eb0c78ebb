import type { Request } from "express";
import type { z } from "zod";
import { mcpCaller } from "../billing/payment.ts";
import type { ApiContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { OPERATIONS } from "../operations/index.ts";
import { expressPath, type ToolHints, toolsOf } from "../operations/operation.ts";

export type { ToolHints } from "../operations/operation.ts";

export interface Tool {
  name: string;
  /** Short human-readable name (MCP title). */
  title: string;
  hints: ToolHints;
  description: string;
  input: z.ZodType;
  /** The REST route this tool is, per the spec's tool-to-route mapping. */
  route: string;
  /** Missing: the route is not built on this deployment yet (same as its REST 501). */
  run?: (ctx: ApiContext, req: Request, args: never) => Promise<unknown>;
}

/** The MCP tools of this deployment (spec: MCP endpoint): each operation's, on its REST route's code path. */
function buildTools(ctx: ApiContext): Tool[] {
  return OPERATIONS.flatMap((op) => {
    const input = op.request;
    if (op.tool && !input)
      throw new Error(`operation ${op.name} has a tool but no request schema for its arguments`);
    return toolsOf(op, ctx).map(
      (tool): Tool => ({
        name: tool.name,
        title: tool.title,
        hints: tool.annotations,
        description: tool.description,
        input: input!,
        route: `${op.method} ${expressPath(op.path)}`,
        run: (ctx: ApiContext, req: Request, args: unknown) =>
          op.run(ctx, tool.toInput ? tool.toInput(args) : args, {
            caller: mcpCaller(ctx, req, tool.name),
            http: req,
          }),
      }),
    );
  });
}

const toolsByContext = new WeakMap<ApiContext, Tool[]>();

/** Every tool of this deployment: one per operation that has one, plus a search tool per configured provider. */
export function toolsFor(ctx: ApiContext): Tool[] {
  let tools = toolsByContext.get(ctx);
  if (!tools) {
    tools = buildTools(ctx);
    toolsByContext.set(ctx, tools);
  }
  return tools;
}

export const notYet = (tool: Tool) =>
  new ApiError("not_implemented", `${tool.name} (${tool.route}) is not available on this deployment yet`);
