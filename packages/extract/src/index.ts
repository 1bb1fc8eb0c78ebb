export {
  answerAsAsked,
  browserFormats,
  browserRequest,
  completeJson,
  type JsonDeps,
  jsonDepsFrom,
} from "./complete.ts";
export { extractJson, type JsonOutcome, type JsonRequest } from "./extract.ts";
export { chatForJson, type LlmConfig, LlmError } from "./llm.ts";
export { schemaProblem } from "./schema.ts";
