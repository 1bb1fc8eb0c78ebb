/** An OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LiteLLM, llama.cpp server …). */
export interface LlmConfig {
  /** e.g. https://api.openai.com/v1 — `/chat/completions` is appended. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

export class LlmError extends Error {
  constructor(
    readonly code: "llm_failed" | "json_refused",
    message: string,
  ) {
    super(message);
  }
}

interface ChatCompletion {
  choices?: Array<{ message?: { content?: string | null; refusal?: string | null }; finish_reason?: string }>;
  error?: { message?: string };
}

/**
 * One structured-output call: the model must answer with JSON matching `schema`
 * (`response_format: json_schema`). Returns the answer's text; throws LlmError.
 */
export async function chatForJson(
  llm: LlmConfig,
  messages: Array<{ role: "system" | "user"; content: string }>,
  schema: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<string> {
  const url = `${llm.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: llm.model,
        messages,
        temperature: 0,
        response_format: { type: "json_schema", json_schema: { name: "extraction", schema, strict: false } },
      }),
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(llm.timeoutMs)])
        : AbortSignal.timeout(llm.timeoutMs),
    });
  } catch (err) {
    const e = err as Error;
    const late = e.name === "TimeoutError" || e.name === "AbortError";
    throw new LlmError(
      "llm_failed",
      late
        ? `the model did not answer within ${llm.timeoutMs} ms`
        : `the model endpoint is unreachable: ${e.message}`,
    );
  }
  const text = await res.text();
  let body: ChatCompletion | undefined;
  try {
    body = JSON.parse(text) as ChatCompletion;
  } catch {
    body = undefined;
  }
  if (!res.ok)
    throw new LlmError(
      "llm_failed",
      `the model endpoint answered ${res.status}: ${body?.error?.message ?? text.slice(0, 300)}`,
    );
  const choice = body?.choices?.[0];
  if (choice?.message?.refusal)
    throw new LlmError("json_refused", `the model refused: ${choice.message.refusal}`);
  const content = choice?.message?.content;
  if (typeof content !== "string" || content.length === 0)
    throw new LlmError("llm_failed", "the model endpoint answered without any content");
  return content;
}
