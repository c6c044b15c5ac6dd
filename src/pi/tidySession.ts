import type { AgentMessage } from "@earendil-works/pi-agent-core"
import type { Api, AssistantMessage, Model } from "@earendil-works/pi-ai"
import {
  createAgentSession,
  DefaultResourceLoader,
  defineTool,
  type ExtensionContext,
  getAgentDir,
  type ModelRuntime,
  SessionManager,
  SettingsManager
} from "@earendil-works/pi-coding-agent"
import { describeTidyLimit } from "../notes/tidy/tidy.ts"
import type { TidyPassRequest, TidyPassResult } from "../notes/tidy/TidyModel.ts"
import type { ToolOutcome } from "../kernel/toolOutcome.ts"
import { type ToolSpec, toolResult } from "./toolSpec.ts"

export interface TidyToolBinding {
  readonly spec: ToolSpec
  readonly call: (params: unknown) => Promise<ToolOutcome>
}

export interface TidyRunRequest extends TidyPassRequest {
  readonly tools: ReadonlyArray<TidyToolBinding>
}

/**
 * Pi keeps the model runtime (credentials, extension-registered providers)
 * behind the registry it hands to extensions, without a public accessor. The
 * pass uses it when it is there, so it can call every model this Pi can;
 * otherwise Pi's default runtime (the agent dir's auth and models files).
 */
const hostModelRuntime = (ctx: ExtensionContext): ModelRuntime | undefined => {
  const runtime = (ctx.modelRegistry as unknown as { readonly runtime?: unknown }).runtime
  return typeof runtime === "object" && runtime !== null ? (runtime as ModelRuntime) : undefined
}

const modelFor = (ctx: ExtensionContext, ref: string | undefined): Model<Api> | string => {
  if (ref === undefined) return ctx.model ?? "no model is selected"
  const slash = ref.indexOf("/")
  const found = slash <= 0 ? undefined : ctx.modelRegistry.find(ref.slice(0, slash), ref.slice(slash + 1))
  return found ?? `the tidyModel setting names "${ref}", which Pi does not know; use provider/model-id`
}

const textOf = (message: AssistantMessage): string =>
  message.content.map((block) => (block.type === "text" ? block.text : "")).join("").trim()

/**
 * One tidy pass: a separate in-memory Pi agent session on the chosen model,
 * with only the given tools (no built-ins, no extensions, no skills, no
 * context files), run to its end. Nothing of it reaches the user's session.
 */
export const runTidySession = async (ctx: ExtensionContext, request: TidyRunRequest): Promise<TidyPassResult> => {
  const model = modelFor(ctx, request.modelRef)
  if (typeof model === "string") return { _tag: "Failed", reason: model }
  const agentDir = getAgentDir()
  const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } })
  const resourceLoader = new DefaultResourceLoader({
    cwd: ctx.cwd,
    agentDir,
    settingsManager,
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    systemPrompt: request.instructions
  })
  const customTools = request.tools.map(({ spec, call }) =>
    defineTool({
      name: spec.name,
      label: spec.label,
      description: spec.description,
      parameters: spec.parameters,
      async execute(_toolCallId, params) {
        return toolResult(await call(params))
      }
    })
  )
  try {
    await resourceLoader.reload()
    const runtime = hostModelRuntime(ctx)
    const { session } = await createAgentSession({
      cwd: ctx.cwd,
      agentDir,
      ...(runtime === undefined ? {} : { modelRuntime: runtime }),
      model,
      thinkingLevel: "off",
      resourceLoader,
      sessionManager: SessionManager.inMemory(ctx.cwd),
      settingsManager,
      noTools: "all",
      tools: request.tools.map(({ spec }) => spec.name),
      customTools
    })
    // A model that never stops calling tools would hold the command and the tidy lock for as long as it likes.
    let turns = 0
    let stopped: "turns" | "time" | undefined
    const stop = (limit: "turns" | "time") => {
      stopped ??= limit
      void session.abort()
    }
    const unsubscribe = session.subscribe((event) => {
      if (event.type === "turn_end" && ++turns >= request.limits.turns) stop("turns")
    })
    const timer = setTimeout(() => stop("time"), request.limits.timeMs)
    try {
      await session.prompt(request.prompt)
      await session.waitForIdle()
      if (stopped !== undefined) return { _tag: "Failed", reason: describeTidyLimit(stopped, request.limits) }
      const replies = session.sessionManager.getBranch().flatMap((entry) => {
        const message = (entry as { readonly type: string; readonly message?: AgentMessage }).message
        return entry.type === "message" && message !== undefined && message.role === "assistant" ? [message as AssistantMessage] : []
      })
      const last = replies.at(-1)
      if (last !== undefined && (last.stopReason === "error" || last.stopReason === "aborted")) {
        return { _tag: "Failed", reason: last.errorMessage ?? `the model's reply ended with ${last.stopReason}` }
      }
      return { _tag: "Done", account: last === undefined ? "" : textOf(last), model: `${model.provider}/${model.id}` }
    } finally {
      clearTimeout(timer)
      unsubscribe()
      session.dispose()
    }
  } catch (error) {
    return { _tag: "Failed", reason: error instanceof Error ? error.message.split("\n")[0]! : String(error) }
  }
}
