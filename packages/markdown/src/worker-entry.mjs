// Entry of MarkdownPool's worker threads. Worker threads do not inherit the parent's module loader
// hooks, so tsx (which runs the rest of the service) is registered here before the TypeScript worker
// is loaded; without tsx installed, this Node must load TypeScript by itself.
try {
  const { register } = await import("tsx/esm/api");
  register();
} catch {
  // No tsx: nothing to register.
}
await import("./worker.ts");
