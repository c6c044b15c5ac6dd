/**
 * `--window` enforced on a real model, whatever the provider accepts: a
 * request larger than the window fails as a provider's overflow does, so
 * every arm works in the same window. A request estimated over the window
 * (four characters a token, as the scripted model counts) is never sent; one
 * the provider counts over it (its usage, after the reply) is turned into the
 * overflow error Pi and the arms recover from, its tokens still billed.
 */
import { createAssistantMessageEventStream } from "@earendil-works/pi-ai/compat"
import type { Api, AssistantMessage, AssistantMessageEventStream, Model, SimpleStreamOptions, TranscriptContext } from "@earendil-works/pi-ai"
import { estimateTokens, requestText } from "../scripted/provider.ts"
import { sentTokens } from "./metrics.ts"

export type StreamSimple = (model: Model<Api>, context: TranscriptContext, options?: SimpleStreamOptions) => AssistantMessageEventStream

/** Anthropic's words, which Pi's overflow detection knows; the eval's window named. */
export const overflowText = (tokens: number, window: number) => `prompt is too long: ${tokens} tokens > ${window} maximum (the eval's --window)`


/** An error reply nobody was billed for: the request was never sent, or its stream broke. */
const unsent = (model: Model<Api>, errorMessage: string): AssistantMessage => ({
  role: "assistant", api: model.api, provider: model.provider, model: model.id, timestamp: Date.now(), content: [], stopReason: "error", errorMessage,
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
})

export const enforceWindow = (send: StreamSimple, window: number): StreamSimple => (model, context, options) => {
  const outer = createAssistantMessageEventStream()
  const refuse = (message: AssistantMessage) => {
    outer.push({ type: "error", reason: "error", error: message })
    outer.end(message)
  }
  const estimate = estimateTokens(requestText(context))
  if (estimate > window) {
    queueMicrotask(() => refuse(unsent(model, overflowText(estimate, window))))
    return outer
  }
  const inner = send(model, context, options)
  void (async () => {
    for await (const event of inner) {
      if (event.type === "done" && sentTokens(event.message.usage) > window) {
        return refuse({ ...event.message, content: [], stopReason: "error", errorMessage: overflowText(sentTokens(event.message.usage), window) })
      }
      outer.push(event)
    }
    outer.end(await inner.result())
  })().catch((error: unknown) => refuse(unsent(model, error instanceof Error ? error.message : String(error))))
  return outer
}
