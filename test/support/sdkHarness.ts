import { join, resolve } from "node:path"
import { InMemoryCredentialStore } from "@earendil-works/pi-ai"
import type { Context as ProviderContext } from "@earendil-works/pi-ai"
import {
  type FauxProviderRegistration,
  type FauxResponseStep,
  registerFauxProvider
} from "@earendil-works/pi-ai/compat"
import {
  type AgentSession,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionFactory,
  type ExtensionContext,
  ModelRuntime,
  SessionManager,
  type SessionEntry,
  SettingsManager
} from "@earendil-works/pi-coding-agent"
import { registerFauxModel } from "./fauxModel.ts"
import { removeTempDir, tempDir } from "./tempDirs.ts"
import { captureUi, type Choose, type Notice, type UiCapture } from "./uiCapture.ts"

export const repoRoot = resolve(import.meta.dirname, "..", "..")

export interface HarnessOptions {
  /** Pi settings (in memory). Compaction is off unless a test turns it on. */
  readonly settings?: Record<string, unknown>
  /**
   * Read Pi's settings from the files, as Pi's CLI does (`<agentDir>/settings.json`, and
   * `<cwd>/.pi/settings.json` when the project is trusted), with `settings` applied over them.
   */
  readonly settingsFiles?: { readonly projectTrusted: boolean }
  /** Model context window in tokens. */
  readonly contextWindow?: number
  /** Extra tools to activate besides pi-context's. */
  readonly tools?: ReadonlyArray<string>
  /** A session to resume (file-backed or in memory). Defaults to a new in-memory session. */
  readonly sessionManager?: (cwd: string) => SessionManager
  /** Share directories with an earlier harness (reopening a session). */
  readonly dirs?: HarnessDirs
  /** Load pi-context (default true); false measures Pi alone. */
  readonly loadPackage?: boolean
  readonly extraExtensions?: ReadonlyArray<ExtensionFactory>
  /** What Pi's editor dialog returns (default: cancelled). */
  readonly editor?: (title: string, prefill: string | undefined) => string | undefined
  /** What the user answers in Pi's confirm dialog (default: no). */
  readonly confirm?: (title: string, message: string) => boolean
  /** What the user chooses in Pi's selector (default: cancelled); `AwaitKeys` leaves it open for `terminal.press`. */
  readonly choose?: Choose
  /** The run mode extensions see (`ctx.mode`); Pi's SDK default is "print". "tui" is what Pi's interactive TUI binds. */
  readonly mode?: ExtensionContext["mode"]
  /** Keep going when Pi reports extension load errors (e.g. its own tool-conflict diagnostics); see `loadErrors`. */
  readonly allowLoadErrors?: boolean
  /** The system prompt; `null` lets Pi build its own (with each tool's line and guidelines), as a user's Pi does. */
  readonly systemPrompt?: string | null
}

export interface HarnessDirs {
  readonly root: string
  readonly agentDir: string
  readonly notesRoot: string
  readonly cwd: string
}

export interface Harness {
  readonly session: AgentSession
  readonly faux: FauxProviderRegistration
  readonly dirs: HarnessDirs
  /** The provider context of every model call, in order. */
  readonly requests: Array<ProviderContext>
  readonly notices: Array<Notice>
  readonly statuses: Array<{ readonly key: string; readonly text: string | undefined }>
  readonly errors: Array<string>
  /** What Pi reported while loading the extensions. */
  readonly loadErrors: ReadonlyArray<{ readonly path: string; readonly error: string }>
  /** Text put back into the editor, and raw terminal input (interactive mode's keys). */
  readonly editorTexts: UiCapture["editorTexts"]
  readonly confirms: UiCapture["confirms"]
  readonly dialogs: UiCapture["dialogs"]
  readonly terminal: UiCapture["terminal"]
  /** Queues scripted model responses; each call consumes one. */
  readonly script: (steps: ReadonlyArray<FauxResponseStep>) => void
  readonly prompt: (text: string) => Promise<void>
  /** Resolves after Pi settles, continuation runs included. */
  readonly waitForIdle: () => Promise<void>
  /**
   * The session's entries (and `branch`, the active branch's) without the context edits each reset appends (one
   * per entry Pi's own context still held): they would shift every index the
   * tests count from a marker. `allEntries` keeps them; test/sdk/resetInChat.test.ts
   * asserts them.
   */
  readonly entries: () => ReadonlyArray<SessionEntry>
  readonly allEntries: () => ReadonlyArray<SessionEntry>
  readonly branch: () => ReadonlyArray<SessionEntry>
  /** Quits as Pi does (`session_shutdown` first), then removes the folders the harness made. */
  readonly dispose: () => Promise<void>
}

export const piContextTools = [
  "wipe_memory",
  "notes_list",
  "notes_read",
  "notes_write",
  "notes_update",
  "notes_search",
  "history_windows",
  "history_list",
  "history_search",
  "history_read",
  "context_remaining"
]

/**
 * The SDK tests' windows and lines were sized for the requests pi-context sent
 * before issue 28 cut what it adds (about 1,600 tokens of tool text and boot):
 * this much system prompt keeps a root window's requests that size, so each
 * test still crosses its lines where its comments say. bench/overhead.ts
 * measures the real sizes; test/sdk/lightRequests.test.ts checks them.
 */
const calibration = ` ${"(calibration) ".repeat(460)}`

/** A harness's folders; the test file's end removes them (test/support/tempDirs.ts), a harness that made them its dispose. */
export const makeDirs = (): HarnessDirs => {
  const root = tempDir("pi-context-sdk-")
  return { root, agentDir: join(root, "agent"), notesRoot: join(root, "notes"), cwd: join(root, "project") }
}

/**
 * Pi's real agent loop in-process, with the faux provider as the model and
 * this package loaded from the repo root exactly as an installed package is.
 */
export const createHarness = async (options: HarnessOptions = {}): Promise<Harness> => {
  const dirs = options.dirs ?? makeDirs()
  const { existsSync, mkdirSync } = await import("node:fs")
  // A path a test put there (a file as the notes root) is left as it is.
  for (const dir of [dirs.agentDir, dirs.notesRoot, dirs.cwd]) if (!existsSync(dir)) mkdirSync(dir, { recursive: true })
  // Pi and pi-context read these; the real ~/.pi is never touched.
  process.env.PI_CODING_AGENT_DIR = dirs.agentDir
  process.env.PI_CONTEXT_NOTES_ROOT = dirs.notesRoot

  const contextWindow = options.contextWindow ?? 200_000
  const faux = registerFauxProvider({
    provider: "faux",
    models: [{ id: "faux-1", contextWindow, maxTokens: 4_000 }]
  })
  const registerFaux: ExtensionFactory = (pi) => registerFauxModel(pi, faux, contextWindow)

  const credentials = new InMemoryCredentialStore()
  await credentials.modify("faux", async () => ({ type: "api_key", key: "faux-key" }))
  const modelRuntime = await ModelRuntime.create({ credentials, modelsPath: join(dirs.agentDir, "models.json"), allowModelNetwork: false })
  const overrides = { compaction: { enabled: false }, retry: { enabled: false }, ...options.settings }
  const settingsManager = options.settingsFiles === undefined
    ? SettingsManager.inMemory(overrides)
    : SettingsManager.create(dirs.cwd, dirs.agentDir, { projectTrusted: options.settingsFiles.projectTrusted })
  if (options.settingsFiles !== undefined) settingsManager.applyOverrides(overrides)
  const resourceLoader = new DefaultResourceLoader({
    cwd: dirs.cwd,
    agentDir: dirs.agentDir,
    settingsManager,
    noExtensions: true,
    additionalExtensionPaths: options.loadPackage === false ? [] : [repoRoot],
    extensionFactories: [registerFaux, ...(options.extraExtensions ?? [])],
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    ...(options.systemPrompt === null ? {} : { systemPrompt: options.systemPrompt ?? `You are a scripted test model.${calibration}` })
  })
  await resourceLoader.reload()
  const loadErrors = resourceLoader.getExtensions().errors
  if (loadErrors.length > 0 && options.allowLoadErrors !== true) throw new Error(`extension load failed: ${JSON.stringify(loadErrors)}`)

  const sessionManager = options.sessionManager?.(dirs.cwd) ?? SessionManager.inMemory(dirs.cwd)
  const { session } = await createAgentSession({
    cwd: dirs.cwd,
    agentDir: dirs.agentDir,
    modelRuntime,
    model: faux.getModel(),
    thinkingLevel: "off",
    resourceLoader,
    sessionManager,
    settingsManager,
    tools: [...piContextTools, ...(options.tools ?? [])]
  })
  const capture = captureUi(options.editor, options.confirm, options.choose)
  const errors: Array<string> = []
  await session.bindExtensions({
    uiContext: capture.ui,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    onError: (error) => void errors.push(`${error.event}: ${error.error}`),
    commandContextActions: {
      waitForIdle: () => session.waitForIdle(),
      navigateTree: async (targetId, navigateOptions) => ({
        cancelled: (await session.navigateTree(targetId, navigateOptions)).cancelled
      }),
      newSession: async () => ({ cancelled: true }),
      fork: async () => ({ cancelled: true }),
      switchSession: async () => ({ cancelled: true }),
      reload: () => session.reload()
    }
  })

  const requests: Array<ProviderContext> = []
  const record = (step: FauxResponseStep): FauxResponseStep => (context, streamOptions, state, model) => {
    requests.push(structuredClone(context) as ProviderContext)
    // The faux provider's prompt-cache simulation counted every prompt token
    // twice before pi-ai 1.5 (as input and as cache write). Without it, every
    // Pi version reports the same total usage, so `npm run test:compat` tests
    // pi-context rather than that accounting; the totals on 1.6 are unchanged.
    if (streamOptions !== undefined) streamOptions.cacheRetention = "none"
    return typeof step === "function" ? step(context, streamOptions, state, model) : step
  }

  /**
   * Ends the session as Pi's own quit does (AgentSessionRuntime.dispose): the
   * run settles, `session_shutdown` ends the last window and waits (bounded)
   * for its notes commit and push and closes pi-context's runtime, and only
   * then is the session disposed and its folders removed. Removing them
   * earlier let that work, and its trace lines, recreate them afterwards.
   * Once only: a test may dispose twice (afterEach after an explicit end).
   */
  let ended: Promise<void> | undefined
  const dispose = () =>
    (ended ??= (async () => {
      await session.abort()
      await session.extensionRunner?.emit({ type: "session_shutdown", reason: "quit" })
      session.dispose()
      faux.unregister()
      await modelRuntime.settleCredentialWrites()
      if (options.dirs === undefined) removeTempDir(dirs.root)
    })())

  return {
    session,
    faux,
    dirs,
    requests,
    notices: capture.notices,
    statuses: capture.statuses,
    errors,
    loadErrors,
    editorTexts: capture.editorTexts,
    confirms: capture.confirms,
    dialogs: capture.dialogs,
    terminal: capture.terminal,
    script: (steps) => faux.appendResponses(steps.map(record)),
    prompt: async (text) => {
      await session.prompt(text)
      await session.waitForIdle()
    },
    waitForIdle: () => session.waitForIdle(),
    entries: () => session.sessionManager.getEntries().filter((entry) => entry.type !== "context_edit"),
    allEntries: () => session.sessionManager.getEntries(),
    branch: () => session.sessionManager.getBranch().filter((entry) => entry.type !== "context_edit"),
    dispose
  }
}
