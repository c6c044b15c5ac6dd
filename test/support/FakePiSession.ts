import { Effect, Layer, Option } from "effect"
import { classifyEntry, type RawEntry } from "../../src/domain/entries.ts"
import {
  type ContextUsage,
  type CustomMessageDraft,
  type ModelInfo,
  type NoticeLevel,
  PiSession
} from "../../src/services/PiSession.ts"
import { interruptWhenAborted } from "../../src/layers/abort.ts"

export interface FakeSessionOptions {
  readonly sessionId?: string
  readonly cwd?: string
  readonly agentDir?: string
  readonly entries?: ReadonlyArray<EntryFields>
  readonly usage?: ContextUsage
  readonly model?: ModelInfo
  readonly settings?: Record<string, unknown>
  readonly projectTrusted?: boolean
  readonly parentSessionId?: string
  /** An abort signal for the current turn; `interruptOnAbort` honours it. */
  readonly signal?: AbortSignal
}

/**
 * An in-memory Pi session for service tests: a linear branch of raw entries,
 * recording every notice, status line and append. Appends become entries, so
 * later reads see them, as with Pi.
 */
export interface FakeSession {
  readonly entries: Array<RawEntry>
  readonly notices: Array<{ readonly message: string; readonly level: NoticeLevel }>
  readonly statuses: Array<string | undefined>
  readonly sent: Array<CustomMessageDraft & { readonly triggerTurn: boolean }>
  readonly appended: Array<{ readonly customType: string; readonly data: unknown }>
  usage: ContextUsage | undefined
  aborted: number
  readonly layer: Layer.Layer<PiSession>
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
  const append = (fields: EntryFields) => {
    const entry = fakeEntry(fields, entries.at(-1)?.id ?? null)
    entries.push(entry)
    return entry
  }
  for (const entry of options.entries ?? []) append(entry)
  const fake: FakeSession = {
    entries,
    notices: [],
    statuses: [],
    sent: [],
    appended: [],
    usage: options.usage,
    aborted: 0,
    layer: Layer.suspend(() => Layer.succeed(PiSession, service))
  }
  const service = PiSession.of({
    sessionId: options.sessionId ?? "0123abcd-0000-7000-8000-000000000000",
    parentSessionId: Effect.succeed(options.parentSessionId),
    cwd: options.cwd ?? "/work/project",
    agentDir: options.agentDir ?? "/tmp/pi-context-fake-agent",
    entries: Effect.sync(() => [...entries]),
    rawBranch: Effect.sync(() => [...entries]),
    branch: Effect.sync(() => entries.map(classifyEntry)),
    branchTail: (isStart) =>
      Effect.sync(() => {
        for (let i = entries.length - 1; i >= 0; i--) if (isStart(entries[i]!)) return entries.slice(i)
        return [...entries]
      }),
    rawBranchAt: (id) => Effect.sync(() => entries.slice(0, entries.findIndex((entry) => entry.id === id) + 1)),
    leafId: Effect.sync(() => entries.at(-1)?.id ?? null),
    contextUsage: Effect.sync(() => Option.fromNullishOr(fake.usage)),
    model: Effect.succeed(Option.fromNullishOr(options.model)),
    settings: Effect.succeed(options.settings ?? {}),
    isProjectTrusted: Effect.succeed(options.projectTrusted ?? false),
    isIdle: Effect.succeed(true),
    appendCustomEntry: (customType, data) =>
      Effect.sync(() => {
        fake.appended.push({ customType, data })
        append({ type: "custom", customType, data })
      }),
    sendMessage: (message, sendOptions) =>
      Effect.sync(() => {
        fake.sent.push({ ...message, triggerTurn: sendOptions?.triggerTurn === true })
        append({ type: "custom_message", ...message })
      }),
    notify: (message, level = "info") => Effect.sync(() => void fake.notices.push({ message, level })),
    setStatus: (text) => Effect.sync(() => void fake.statuses.push(text)),
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
