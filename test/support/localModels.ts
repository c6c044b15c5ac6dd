import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "./tempDirs.ts"

/**
 * A user's Pi agent folder whose models.json registers one local OpenAI-compatible server on 127.0.0.1:`port`
 * as the provider `local`, as a user registers Ollama or llama.cpp; `apiKey` null leaves the key out.
 */
export const localModelsDir = (
  port: number,
  model: { readonly id: string; readonly contextWindow: number; readonly cost?: { input: number; output: number; cacheRead: number; cacheWrite: number } },
  apiKey: string | null = "local-key"
): string => {
  const dir = tempDir("pi-context-eval-user-")
  writeFileSync(join(dir, "models.json"), JSON.stringify({
    providers: {
      local: {
        baseUrl: `http://127.0.0.1:${port}/v1`,
        api: "openai-completions",
        ...(apiKey === null ? {} : { apiKey }),
        models: [{ maxTokens: 4_000, ...model }]
      }
    }
  }))
  return dir
}
