/**
 * The scripted agent as a Pi provider: every reply is a function of the
 * request it is sent, and the usage it reports is counted from that request's
 * text (four characters a token, the estimate Pi and pi-context use), so the
 * windows fill and turn over as they would with a real model.
 */
import { realpathSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createAssistantMessageEventStream } from "@earendil-works/pi-ai/compat"
import type { AssistantMessage, Message, Model, Api, SimpleStreamOptions, TranscriptContext, Usage } from "@earendil-works/pi-ai"

export const scriptedApi = "pi-context-eval-scripted"
export const scriptedProvider = "scripted"
export const scriptedModelId = "scripted-agent"

export type Reply = Pick<AssistantMessage, "content" | "stopReason"> & { readonly errorMessage?: string }

/** A provider failure the stub injects instead of a reply (tests of the harness's failure handling). */
export type InjectedFailure =
  | { readonly kind: "rate-limit"; readonly retryAfterSeconds: number }
  | { readonly kind: "server-error" }
  | { readonly kind: "context-overflow" }
  | { readonly kind: "hang" }

export interface ScriptedProviderOptions {
  readonly contextWindow: number
  readonly reply: (context: TranscriptContext) => Reply
  /** Decides, per call (1-based), whether the call fails instead. */
  readonly failure?: (call: number) => InjectedFailure | undefined
  /** Tests only: how long a request waits, silent, before its reply (a slow model). */
  readonly delayMs?: (context: TranscriptContext) => number
}

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

/** The request as text, the way a provider receives it: system prompt, tools and messages in order. */
/**
 * The folder this checkout was cloned into, as Pi's system prompt names it (the paths of Pi's own docs under
 * node_modules): the counted text calls it `<checkout>`, so no figure depends on where a checkout lives (a clone
 * in another folder reproduces the committed run token for token).
 */
const checkoutRoots = (() => {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
  return [...new Set([realpathSync(root), root])].sort((a, b) => b.length - a.length)
})()

const checkoutNeutral = (text: string): string => checkoutRoots.reduce((neutral, root) => neutral.replaceAll(root, "<checkout>"), text)

export const requestText = (context: TranscriptContext): string => checkoutNeutral(context.messages.map(messageText).join("\n\n"))

const messageText = (message: Message): string => {
  switch (message.role) {
    case "system": {
      const content = typeof message.content === "string" ? message.content : message.content.map((part) => part.text).join("")
      const sections = Object.values(message.sections ?? {}).filter((section): section is string => typeof section === "string")
      const tools = (message.toolsAdded ?? []).map((tool) => JSON.stringify(tool))
      return ["system:", content, ...sections, ...tools].join("\n")
    }
    case "user":
      return `user:${typeof message.content === "string" ? message.content : message.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("")}`
    case "assistant":
      return `assistant:${assistantText(message.content)}`
    case "toolResult":
      return `toolResult:${message.toolName}\n${message.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("")}`
  }
}

const assistantText = (content: AssistantMessage["content"]): string =>
  content.map((part) => (part.type === "text" ? part.text : part.type === "thinking" ? part.thinking : `${part.name}:${JSON.stringify(part.arguments)}`)).join("\n")

const zeroCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }

/** How many characters two requests share from their start: what a provider's prefix cache would read. */
export const commonPrefix = (a: string, b: string): number => {
  const length = Math.min(a.length, b.length)
  let index = 0
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++
  return index
}

const failureMessage = (failure: InjectedFailure, tokens: number, window: number): string => {
  switch (failure.kind) {
    case "rate-limit":
      return `429 Too Many Requests: rate limit exceeded, retry-after: ${failure.retryAfterSeconds}s`
    case "server-error":
      return "500 Internal Server Error: the server had an error while processing the request"
    case "context-overflow":
      return `prompt is too long: ${Math.max(tokens, window + 1)} tokens > ${window} maximum`
    case "hang":
      return ""
  }
}

/**
 * The provider's stream function. Usage: the prefix shared with the previous
 * request of the same session counts as cache reads (a provider prefix cache),
 * the rest as cache writes; the reply's text as output.
 */
export const scriptedStream = (options: ScriptedProviderOptions) => {
  const previous = new Map<string, string>()
  let calls = 0
  return (model: Model<Api>, context: TranscriptContext, streamOptions?: SimpleStreamOptions) => {
    const stream = createAssistantMessageEventStream()
    calls++
    const call = calls
    const text = requestText(context)
    const promptTokens = estimateTokens(text)
    const sessionKey = streamOptions?.sessionId ?? "default"
    const cachedTokens = Math.floor(commonPrefix(previous.get(sessionKey) ?? "", text) / 4)
    previous.set(sessionKey, text)
    const base = {
      role: "assistant" as const,
      api: model.api,
      provider: model.provider,
      model: model.id,
      timestamp: Date.now()
    }
    // As a provider with a cache breakpoint at the end of every prompt bills it (Anthropic, the way Pi marks its
    // requests): the prefix the previous request shares is read from the cache, the rest is written to it.
    const usageFor = (output: number): Usage => ({
      input: 0,
      output,
      cacheRead: cachedTokens,
      cacheWrite: promptTokens - cachedTokens,
      totalTokens: promptTokens + output,
      cost: zeroCost
    })
    // A refused request is not billed: its usage is zero, as real providers report it.
    const fail = (errorMessage: string) => {
      const message: AssistantMessage = { ...base, content: [], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: zeroCost }, stopReason: "error", errorMessage }
      stream.push({ type: "error", reason: "error", error: message })
      stream.end(message)
    }
    queueMicrotask(() => {
      const injected = options.failure?.(call)
      if (injected?.kind === "hang") {
        const abort = () => {
          const message: AssistantMessage = { ...base, content: [], usage: usageFor(0), stopReason: "aborted", errorMessage: "Request was aborted" }
          stream.push({ type: "error", reason: "aborted", error: message })
          stream.end(message)
        }
        if (streamOptions?.signal?.aborted === true) abort()
        else streamOptions?.signal?.addEventListener("abort", abort, { once: true })
        return
      }
      if (injected !== undefined) return fail(failureMessage(injected, promptTokens, options.contextWindow))
      // A real provider refuses a request longer than the window.
      if (promptTokens > options.contextWindow) return fail(failureMessage({ kind: "context-overflow" }, promptTokens, options.contextWindow))
      const delay = options.delayMs?.(context) ?? 0
      if (delay > 0) setTimeout(answer, delay)
      else answer()
    })
    const answer = () => {
      const reply = options.reply(context)
      const message: AssistantMessage = {
        ...base,
        content: reply.content,
        usage: usageFor(estimateTokens(assistantText(reply.content))),
        stopReason: reply.stopReason,
        ...(reply.errorMessage === undefined ? {} : { errorMessage: reply.errorMessage })
      }
      stream.push({ type: "start", partial: { ...message, content: [] } })
      stream.push({ type: "done", reason: message.stopReason === "toolUse" ? "toolUse" : "stop", message })
      stream.end(message)
    }
    return stream
  }
}
