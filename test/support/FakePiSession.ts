import { Effect, Layer, Option } from "effect"
import { classifyEntry, type RawEntry } from "../../src/kernel/entries.ts"
import { CustomType } from "../../src/kernel/protocol.ts"
import { interruptWhenAborted } from "../../src/kernel/abort.ts"
import { reportPlainText } from "../../src/pi/reportView.ts"
import { plainLines } from "../../src/notes/consent.ts"
import { type CustomMessageDraft, type ModelInfo, type NoticeLevel, PiSession } from "../../src/kernel/PiSession.ts"
import type { WindowUsage } from "../../src/kernel/facts.ts"

export interface FakeSessionOptions {
  readonly sessionId?: string
  readonly cwd?: string
  readonly agentDir?: string
  readonly entries?: ReadonlyArray<EntryFields>
  readonly usage?: WindowUsage
  readonly model?: ModelInfo
  readonly settings?: Readonly<Record<string, unknown>>
  readonly projectTrusted?: boolean
  readonly parentSessionId?: string
  /** An abort signal for the current turn; `interruptOnAbort` honours it. */
  readonly signal?: AbortSignal
  /** What the user answers to `askUser` (default: nobody can answer). */
  readonly answer?: "yes" | "no" | "unavailable"
  /** The session takes a boundary written inside a boundary hook (as Pi's SessionManager does); default: drafts go back to Pi. */
  readonly writesInHook?: boolean
  /**
   * Ids counted in this session (`<idPrefix>0000000n`) and entry times a second
   * apart, as the history tests read them. Without it, ids are unique across
   * sessions and an entry's time is the epoch unless it names one.
   */
  readonly counted?: { readonly idPrefix?: string }
}

export interface ToolCallSpec {
  readonly id: string
  readonly name: string
  readonly args?: Record<string, unknown>
}

/**
 * The one in-memory Pi session for tests: a session tree (entries in append
 * order, a movable leaf, the branch walked from the leaf as Pi does), knobs a
 * test turns (usage, model, settings, trust), and a record of every notice,
 * status line and append. Appends become entries under the leaf, as with Pi.
 * `layer` serves it as the PiSession port, built on `Layer.mock`.
 */
export interface FakeSession {
  readonly sessionId: string
  /** Every entry in append order, across all branches. */
  readonly entries: Array<RawEntry>
  readonly notices: Array<{ readonly message: string; readonly level: NoticeLevel }>
  readonly statuses: Array<string | undefined>
  /** The tools `offerTools` has offered and not withdrawn since. */
  readonly offeredTools: Set<string>
  /** Every question `askUser` put to the user. */
  readonly asked: Array<{ readonly title: string; readonly message: string }>
  readonly sent: Array<CustomMessageDraft & { readonly triggerTurn: boolean }>
  readonly appended: Array<{ readonly customType: string; readonly data: unknown }>
  usage: WindowUsage | undefined
  model: ModelInfo | undefined
  settings: Readonly<Record<string, unknown>>
  projectTrusted: boolean
  /** Whether the host draws pi-context's entries in its chat, as Pi's TUI does. */
  chatShowsEntries: boolean
  /** No run is active; a test flips it to start one. */
  idle: boolean
  aborted: number
  readonly leafId: string | null
  /** Moves the leaf (Pi's tree navigation): later appends and branch reads start there. */
  readonly moveTo: (id: string | null) => void
  /** The active branch, root to leaf. */
  readonly branch: () => ReadonlyArray<RawEntry>
  /** Appends one entry under the leaf and moves the leaf to it. */
  readonly append: (fields: EntryFields) => RawEntry
  readonly user: (text: string) => string
  readonly assistant: (text: string, calls?: ReadonlyArray<ToolCallSpec>) => string
  readonly toolResult: (toolCallId: string, toolName: string, output: string, isError?: boolean) => string
  readonly bash: (command: string, output: string, exitCode: number | undefined) => string
  readonly marker: (windowId: string) => string
  readonly boot: (windowId: string, text: string) => string
  readonly modelChange: () => string
  readonly compaction: (summary: string) => string
  readonly layer: Layer.Layer<PiSession>
}

export const defaultModel: ModelInfo = { provider: "anthropic", id: "claude-sonnet-4", contextWindow: 200_000 }

/** Where the budget and settings tests start: paths that do not exist, a trusted project, a 200k-token model. */
export const settingsSessionOptions: FakeSessionOptions = {
  sessionId: "session-1",
  agentDir: "/nonexistent/agent",
  cwd: "/nonexistent/project",
  projectTrusted: true,
  model: defaultModel
}

let counter = 0
const nextId = () => (++counter).toString(16).padStart(8, "0")

export type EntryFields = { readonly type: string; readonly id?: string; readonly timestamp?: string } & Readonly<Record<string, unknown>>

export const fakeEntry = (fields: EntryFields, parentId: string | null = null): RawEntry => ({
  ...fields,
  id: fields.id ?? nextId(),
  parentId,
  timestamp: fields.timestamp ?? new Date(0).toISOString()
})

export const makeFakeSession = (options: FakeSessionOptions = {}): FakeSession => {
  const entries: Array<RawEntry> = []
  const byId = new Map<string, RawEntry>()
  let leaf: string | null = null
  let clock = Date.parse("2025-05-01T10:00:00.000Z")
  const counted = options.counted

  const append = (fields: EntryFields): RawEntry => {
    const entry = counted === undefined ? fakeEntry(fields, leaf) : (() => {
      const prefix = counted.idPrefix ?? ""
      clock += 1000
      return {
        ...fields,
        id: fields.id ?? `${prefix}${(entries.length + 1).toString(16).padStart(8 - prefix.length, "0")}`,
        parentId: leaf,
        timestamp: fields.timestamp ?? new Date(clock).toISOString()
      }
    })()
    entries.push(entry)
    byId.set(entry.id, entry)
    leaf = entry.id
    return entry
  }
  const pathTo = (id: string | null): Array<RawEntry> => {
    const path: Array<RawEntry> = []
    for (let cursor = id; cursor !== null;) {
      const entry = byId.get(cursor)
      if (entry === undefined) break
      path.push(entry)
      cursor = entry.parentId
    }
    return path.reverse()
  }
  const message = (fields: Record<string, unknown>) => append({ type: "message", message: { timestamp: clock, ...fields } }).id

  for (const entry of options.entries ?? []) append(entry)

  const fake: FakeSession = {
    sessionId: options.sessionId ?? "0123abcd-0000-7000-8000-000000000000",
    entries,
    notices: [],
    statuses: [],
    offeredTools: new Set(),
    asked: [],
    sent: [],
    appended: [],
    usage: options.usage,
    model: options.model,
    settings: options.settings ?? {},
    projectTrusted: options.projectTrusted ?? false,
    chatShowsEntries: false,
    idle: true,
    aborted: 0,
    get leafId() {
      return leaf
    },
    moveTo: (id) => {
      leaf = id
    },
    branch: () => pathTo(leaf),
    append,
    user: (text) => message({ role: "user", content: text }),
    assistant: (text, calls = []) =>
      message({
        role: "assistant",
        content: [
          ...(text === "" ? [] : [{ type: "text", text }]),
          ...calls.map((call) => ({ type: "toolCall", id: call.id, name: call.name, arguments: call.args ?? {} }))
        ],
        stopReason: calls.length > 0 ? "toolUse" : "stop"
      }),
    toolResult: (toolCallId, toolName, output, isError = false) =>
      message({ role: "toolResult", toolCallId, toolName, content: [{ type: "text", text: output }], isError }),
    bash: (command, output, exitCode) => message({ role: "bashExecution", command, output, exitCode, cancelled: false, truncated: false }),
    marker: (windowId) => append({ type: "custom", customType: CustomType.resetMarker, data: { windowId } }).id,
    boot: (windowId, text) => append({ type: "custom_message", customType: CustomType.boot, content: text, display: false, details: { windowId } }).id,
    modelChange: () => append({ type: "model_change", provider: "faux", modelId: "m" }).id,
    compaction: (summary) => append({ type: "compaction", summary, firstKeptEntryId: "00000001", tokensBefore: 10 }).id,
    layer: Layer.suspend(() => service)
  }

  const service = Layer.mock(PiSession)({
    sessionId: fake.sessionId,
    parentSessionId: Effect.succeed(options.parentSessionId),
    cwd: options.cwd ?? "/work/project",
    agentDir: options.agentDir ?? "/tmp/pi-context-fake-agent",
    entries: Effect.sync(() => [...entries]),
    rawBranch: Effect.sync(() => pathTo(leaf)),
    branch: Effect.sync(() => pathTo(leaf).map(classifyEntry)),
    branchTail: (isStart) =>
      Effect.sync(() => {
        const branch = pathTo(leaf)
        for (let i = branch.length - 1; i >= 0; i--) if (isStart(branch[i]!)) return branch.slice(i)
        return branch
      }),
    rawBranchAt: (id) => Effect.sync(() => pathTo(byId.has(id) ? id : null)),
    leafId: Effect.sync(() => leaf),
    contextUsage: Effect.sync(() => Option.fromNullishOr(fake.usage)),
    model: Effect.sync(() => Option.fromNullishOr(fake.model)),
    settings: Effect.sync(() => fake.settings),
    isProjectTrusted: Effect.sync(() => fake.projectTrusted),
    isIdle: Effect.sync(() => fake.idle),
    hasQueuedMessages: Effect.succeed(false),
    appendCustomEntry: (customType, data) =>
      Effect.sync(() => {
        fake.appended.push({ customType, data })
        append({ type: "custom", customType, data })
      }),
    hideFromPiContext: (ids) => Effect.sync(() => ids.forEach((targetId) => append({ type: "context_edit", targetId, replacement: null }))),
    ...(options.writesInHook === true ? { writesInHook: true } : {}),
    appendHiddenMessage: (message) => Effect.sync(() => void append({ type: "custom_message", ...message, display: false })),
    sendMessage: (message, sendOptions) =>
      Effect.sync(() => {
        fake.sent.push({ ...message, triggerTurn: sendOptions?.triggerTurn === true })
        append({ type: "custom_message", ...message })
      }),
    notify: (message, level = "info") => Effect.sync(() => void fake.notices.push({ message, level })),
    showReport: (report) =>
      Effect.sync(() => void fake.notices.push({ message: reportPlainText(report), level: report.kind === "text" && report.level === "warning" ? "warning" : "info" })),
    chatShowsEntries: Effect.sync(() => fake.chatShowsEntries),
    setStatus: (text) => Effect.sync(() => void fake.statuses.push(text)),
    askUser: (question) =>
      Effect.sync(() => {
        fake.asked.push({ title: question.title, message: `${question.message}\n\n${plainLines(question.lines)}` })
        return options.answer ?? "unavailable"
      }),
    offeredToolsJson: (names) => Effect.succeed(JSON.stringify(names.filter((name) => fake.offeredTools.has(name)).map((name) => ({ name })))),
    offerTools: (names, offered) =>
      Effect.sync(() => {
        for (const name of names) offered ? fake.offeredTools.add(name) : fake.offeredTools.delete(name)
      }),
    abort: Effect.sync(() => void fake.aborted++),
    interruptOnAbort: (effect) => (options.signal === undefined ? effect : interruptWhenAborted(options.signal)(effect))
  })
  return fake
}

/** Appends a conversation message entry (user / assistant / toolResult) to a fake session. */
export const messageEntry = (role: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: "message",
  message: { role, content: [{ type: "text", text }], timestamp: 0, ...extra }
})

/** A successful `notes_write` result: the window has a checkpoint, so `wipe_memory` goes through. */
export const checkpointEntry = () => messageEntry("toolResult", "Created checkpoint (40 B).", { toolName: "notes_write", toolCallId: "call-1", isError: false })
