export * from "./codec.ts";
export * from "./connection.ts";
export * from "./local-server.ts";
export * from "./publish.ts";
export * from "./subjects.ts";
export * from "./tasks.ts";
export * from "./worker-loop.ts";
export * from "./workers-kv.ts";
