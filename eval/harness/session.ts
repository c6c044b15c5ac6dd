/**
 * One eval run's Pi session: Pi's SDK with its real tools in a fresh project,
 * the arm's context manager, and the model (the scripted agent, or a model
 * from the user's own Pi set-up) seen through the eval's window.
 */
import { existsSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { isAbsolute, join, resolve } from "node:path"
import { InMemoryCredentialStore, normalizeContext } from "@earendil-works/pi-ai"
import type { Api, Model, TranscriptContext } from "@earendil-works/pi-ai"
import { type AgentSession, createAgentSession, DefaultResourceLoader, ModelRuntime, SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent"
import { getCurrentSystemPrompt } from "@earendil-works/pi-ai"
import { scriptedAgent, summarizerPrompt } from "../scripted/agent.ts"
import { type InjectedFailure, scriptedApi, scriptedModelId, scriptedProvider, scriptedStream } from "../scripted/provider.ts"
import type { Task } from "../tasks/taskTypes.ts"
import { compactionOf, defaultMask } from "./settings.ts"
import type { JobSpec } from "./types.ts"
import { enforceWindow, type StreamSimple } from "./window.ts"

export const repoRoot = resolve(import.meta.dirname, "..", "..")

const textOfReply = (reply: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }> }): string =>
  reply.content.map((part) => (part.type === "text" ? part.text ?? "" : "")).join("")

export interface RunDirs {
  readonly root: string
  readonly agentDir: string
  readonly notesRoot: string
  readonly cwd: string
  readonly sessionDir: string
}

/** The window a run's model has: `--window`, except for the `fresh` arm, the upper bound with no window pressure (the model's own window). */
export const FreshWindow = 1_000_000
export const runWindow = (spec: JobSpec, modelWindow: number): number => (spec.arm === "fresh" ? Math.max(modelWindow, spec.window) : spec.window)

/**
 * Pi's settings for an arm: the same compaction numbers for every arm, compaction off for `none`, `masking` and `fresh`
 * (`hybrid` masks and keeps compaction as its fallback).
 */
export const armSettings = (spec: JobSpec): Record<string, unknown> => ({
  compaction: { enabled: spec.arm !== "none" && spec.arm !== "masking" && spec.arm !== "fresh", ...compactionOf(spec) },
  retry: { enabled: spec.retry.maxRetries > 0, maxRetries: spec.retry.maxRetries, baseDelayMs: spec.retry.baseDelayMs },
  // Warming the prompt cache between calls would add calls no arm asked for.
  cacheWarming: "off",
  ...(spec.arm === "pi-context" && spec.lines !== undefined ? { "pi-context": { ...spec.lines } } : {}),
  ...(spec.arm === "masking" || spec.arm === "hybrid" ? { masking: { ...(spec.mask ?? defaultMask) } } : {})
})

/** What `pi -e <source>` would load: a path (file or package directory), or an installed package name. */
export const extensionPath = (source: string, cwd: string): string => {
  const path = isAbsolute(source) ? source : resolve(cwd, source)
  if (existsSync(path)) return path
  const fromCwd = createRequire(join(cwd, "package.json"))
  try {
    return resolve(fromCwd.resolve(`${source}/package.json`), "..")
  } catch {
    throw new Error(`extension ${source} is neither a path nor an installed package (npm install it, or give its path)`)
  }
}

const extensionsFor = (spec: JobSpec): ReadonlyArray<string> => {
  if (spec.arm === "pi-context") return [repoRoot]
  if (spec.arm === "masking" || spec.arm === "hybrid") return [join(repoRoot, "eval", "masking", "extension.ts")]
  if (spec.arm.startsWith("ext:")) return [extensionPath(spec.arm.slice(4), spec.invokedFrom)]
  return []
}

const scriptedRuntime = async (
  spec: JobSpec,
  task: Task,
  dirs: RunDirs,
  failure: ((call: number) => InjectedFailure | undefined) | undefined,
  requests: Array<TranscriptContext>
) => {
  const agent = scriptedAgent(task.solver, spec.standIn)
  const credentials = new InMemoryCredentialStore()
  await credentials.modify(scriptedProvider, async () => ({ type: "api_key", key: "scripted" }))
  const runtime = await ModelRuntime.create({ credentials, modelsPath: join(dirs.agentDir, "models.json"), allowModelNetwork: false })
  runtime.registerProvider(scriptedProvider, {
    baseUrl: "http://127.0.0.1:9",
    apiKey: "scripted",
    api: scriptedApi,
    // Every request is kept: the continuity probes resend the first one of each new window.
    streamSimple: scriptedStream({
      contextWindow: runWindow(spec, FreshWindow),
      reply: (context) => (requests.push(context), agent(context)),
      ...(failure === undefined ? {} : { failure }),
      ...(spec.summaryDelayMs === undefined ? {} : { delayMs: (context) => (getCurrentSystemPrompt(context.messages).startsWith(summarizerPrompt) ? spec.summaryDelayMs! : 0) })
    }),
    models: [{
      id: scriptedModelId,
      name: "Scripted agent",
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: runWindow(spec, FreshWindow),
      maxTokens: 4_000
    }]
  })
  return runtime
}

/** The user's Pi set-up: its models and credentials, read from the user's agent dir (never written by the eval). */
export const userRuntime = (userAgentDir: string) =>
  ModelRuntime.create({ authPath: join(userAgentDir, "auth.json"), modelsPath: join(userAgentDir, "models.json"), allowModelNetwork: false })

/** `provider/id` (the id may hold slashes) in a runtime's models. */
export const modelOf = (runtime: ModelRuntime, ref: string) => {
  const [provider, ...rest] = ref.split("/")
  return runtime.getModel(provider!, rest.join("/"))
}

export const openSession = async (
  spec: JobSpec,
  task: Task,
  dirs: RunDirs,
  failure?: (call: number) => InjectedFailure | undefined
): Promise<{
  readonly session: AgentSession
  readonly model: Model<Api>
  readonly loadErrors: ReadonlyArray<string>
  /** The model's requests, in order, and how it answers a probe (one call of the same model, outside the run). */
  readonly probing: { readonly requests: ReadonlyArray<TranscriptContext>; readonly answer: (context: TranscriptContext) => string | Promise<string> }
}> => {
  // pi-context and Pi read these; the user's own agent dir and notes are never touched.
  process.env.PI_CODING_AGENT_DIR = dirs.agentDir
  process.env.PI_CONTEXT_NOTES_ROOT = dirs.notesRoot
  const scripted = spec.model === "scripted"
  const requests: Array<TranscriptContext> = []
  const modelRuntime = scripted ? await scriptedRuntime(spec, task, dirs, failure, requests) : await userRuntime(spec.userAgentDir)
  // A real model's requests are kept as they go to the provider, as the scripted model keeps its own: the probes resend
  // the first of each new window, through the same runtime (its credentials) but not through this record.
  const found = modelOf(modelRuntime, scripted ? `${scriptedProvider}/${scriptedModelId}` : spec.model)
  if (found === undefined) throw new Error(`model ${spec.model} is not in your Pi set-up (pi --list-models shows the models it can reach)`)
  const window = runWindow(spec, found.contextWindow)
  const model: Model<Api> = { ...found, contextWindow: window }
  // The scripted model refuses a request over the window itself; a real one is held to it here.
  const send = scripted ? modelRuntime.streamSimple.bind(modelRuntime) : enforceWindow(modelRuntime.streamSimple.bind(modelRuntime) as StreamSimple, window)
  if (!scripted) {
    modelRuntime.streamSimple = ((m: Model<Api>, context: TranscriptContext, options?: Parameters<typeof send>[2]) => {
      requests.push(normalizeContext(context))
      return send(m, context, options)
    }) as typeof modelRuntime.streamSimple
  }
  // A settings file, as a user's would be: Pi and pi-context (which reads the files) see the same numbers.
  writeFileSync(join(dirs.agentDir, "settings.json"), `${JSON.stringify(armSettings(spec), null, 2)}\n`)
  const settingsManager = SettingsManager.create(dirs.cwd, dirs.agentDir)
  const resourceLoader = new DefaultResourceLoader({
    cwd: dirs.cwd,
    agentDir: dirs.agentDir,
    settingsManager,
    noExtensions: true,
    additionalExtensionPaths: [...extensionsFor(spec)],
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true
  })
  await resourceLoader.reload()
  const loadErrors = resourceLoader.getExtensions().errors.map((error) => `${error.path}: ${error.error}`)
  const { session } = await createAgentSession({
    cwd: dirs.cwd,
    agentDir: dirs.agentDir,
    modelRuntime,
    model,
    ...(scripted ? { thinkingLevel: "off" as const } : {}),
    resourceLoader,
    sessionManager: SessionManager.create(dirs.cwd, dirs.sessionDir),
    settingsManager
  })
  await session.bindExtensions({
    commandContextActions: {
      waitForIdle: () => session.waitForIdle(),
      navigateTree: async (targetId, options) => ({ cancelled: (await session.navigateTree(targetId, options)).cancelled }),
      newSession: async () => ({ cancelled: true }),
      fork: async () => ({ cancelled: true }),
      switchSession: async () => ({ cancelled: true }),
      reload: () => session.reload()
    }
  })
  const probing = {
    requests,
    answer: scripted
      ? (context: TranscriptContext) => textOfReply(scriptedAgent(task.solver, spec.standIn)(context))
      : async (context: TranscriptContext) => textOfReply(await send(model, context).result())
  }
  return { session, model, loadErrors, probing }
}
