import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent"
import { closeSync, openSync, readSync } from "node:fs"
import { Effect, Option } from "effect"
import type { ReportData, StatusTone } from "../kernel/report.ts"
import { classifyEntry, type RawEntry } from "../kernel/entries.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { interruptWhenAborted } from "../kernel/abort.ts"
import { askInDialog } from "./consentDialog.ts"
import { appendHidingEdits } from "./contextEdits.ts"

/**
 * Context edits per write: a batch takes a few milliseconds (bench/resetEdits.ts), so that
 * a reset of any window gives the event loop a turn well within every 50 ms, even on a loaded machine.
 */
export const editsPerBatch = 500

/**
 * A turn of Node's event loop (timers, I/O, signals). Effect's own yield does
 * not give one where a hook runs synchronously until it suspends (runtime.ts).
 */
const eventLoopTurn: Effect.Effect<void> = Effect.callback<void>((resume) => {
  const turn = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(turn))
})

const batches = <A>(items: ReadonlyArray<A>): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / editsPerBatch) }, (_, i) => items.slice(i * editsPerBatch, (i + 1) * editsPerBatch))

const asRaw = (entries: ReadonlyArray<unknown>) => entries as ReadonlyArray<RawEntry>

/** The id in a session file's header line; undefined when the file is missing or foreign. */
const readSessionId = (path: string | undefined): string | undefined => {
  if (path === undefined) return undefined
  try {
    // The header is the first line; read a bounded prefix, not the whole session.
    const fd = openSync(path, "r")
    const buffer = Buffer.alloc(64 * 1024)
    const length = readSync(fd, buffer, 0, buffer.length, 0)
    closeSync(fd)
    const firstLine = buffer.subarray(0, length).toString("utf8").split("\n", 1)[0] ?? ""
    const header = JSON.parse(firstLine) as { type?: unknown; id?: unknown }
    return header.type === "session" && typeof header.id === "string" ? header.id : undefined
  } catch {
    return undefined
  }
}

/**
 * A Pi call that threw: Pi's own helpers read every session entry, and one
 * that another extension wrote in a shape Pi does not expect (a custom
 * message whose content is not text) makes them throw. The host tells the
 * user once per operation; the port answers neutrally meanwhile.
 */
export type PiFault = (fault: { readonly operation: PiOperation; readonly error: unknown }) => void

export type PiOperation = "context usage" | "model" | "settings" | "project trust" | "idle state" | "message queue" | "context edit"

/** What pi-context does without each answer, for the one notice. */
export const faultFallback: Readonly<Record<PiOperation, string>> = {
  "context usage": "the usage counts as unknown: the status line shows no figure, and the budget uses pi-context's own estimate of each request",
  model: "the model counts as unknown, so no budget line applies",
  settings: "pi-context uses its default settings",
  "project trust": "the project's .pi/settings.json is not applied",
  "idle state": "the agent counts as busy",
  "message queue": "a waiting /wipe-memory counts every queued message as sent after it",
  "context edit": "Pi's own context keeps that entry, so its footer counts it until the next reply (the model is sent only the new window)"
}

const ignoreFault: PiFault = () => {}

/** Pi's own footer turns yellow, then red, as the window fills: the status line takes the same theme colours. */
const colourStatus = (ctx: ExtensionContext, text: string, tone: StatusTone): string => {
  if (tone === "normal") return text
  const theme = ctx.hasUI ? ctx.ui.theme : undefined
  return typeof theme?.fg === "function" ? theme.fg(tone === "warning" ? "error" : "warning", text) : text
}

/**
 * How a report reaches the user, handed in by the adapters that draw it: in
 * Pi's TUI a chat entry, elsewhere a notice. The port only passes it on.
 */
export interface ReportSurface {
  readonly show: (pi: ExtensionAPI, ctx: ExtensionContext, report: ReportData) => void
  readonly chatShowsEntries: (ctx: ExtensionContext) => boolean
}

/** Wraps one Pi event's `ctx` as the PiSession port. Cheap: built per event. */
export const make = (pi: ExtensionAPI, ctx: ExtensionContext, surface: ReportSurface, onFault: PiFault = ignoreFault): PiSession["Service"] => {
  const sessionManager = ctx.sessionManager
  /** A read from Pi that never throws: a failure is reported and answered with `fallback`. */
  const guarded = <A>(operation: PiOperation, fallback: A, read: () => A): Effect.Effect<A> =>
    Effect.try({ try: read, catch: (error) => error }).pipe(
      Effect.catch((error) => Effect.sync(() => (onFault({ operation, error }), fallback)))
    )
  const rawBranch = Effect.sync(() => asRaw(sessionManager.getBranch()))
  /**
   * Pi's getEntries() copies the whole session (a 100,000-entry session: about
   * 5 ms). Within one event the copy is kept until Pi appends: Pi only ever
   * appends, so an unchanged count (and session) is an unchanged session, and
   * the Window and History rooms reading it in one tool call pay one copy.
   */
  let copied: { readonly sessionId: string; readonly count: number; readonly entries: ReadonlyArray<RawEntry> } | undefined
  // On Pi's SessionManager (an O(1) count), not on the read-only type extensions get: used when it is there.
  const counted = sessionManager as { readonly getEntryCount?: () => number }
  const countEntries = typeof counted.getEntryCount === "function" ? () => counted.getEntryCount!() : undefined
  // Pi's SessionManager appends context edits and hidden messages; the read-only type extensions get leaves them out. Used when there.
  const writable = sessionManager as {
    readonly appendContextEdit?: (targetId: string, replacement: null) => string
    readonly appendCustomMessageEntry?: (customType: string, content: string, display: boolean, details: unknown) => string
  }
  const appendContextEdit = writable.appendContextEdit
  const appendCustomMessageEntry = writable.appendCustomMessageEntry
  /** One batch of edits: in one write when Pi's session manager allows it, else Pi's own append, edit by edit. */
  const hideBatch = (ids: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      // Stamped as Pi stamps the entries around them, by its own wall clock. A failed write is told and not retried.
      const atOnce = yield* guarded("context edit", true, () => appendHidingEdits(sessionManager, ids, new Date().toISOString()))
      if (atOnce) return
      yield* Effect.forEach(ids, (id) => guarded("context edit", undefined, () => void appendContextEdit!.call(sessionManager, id, null)), { discard: true })
    })
  const entries = Effect.sync(() => {
    if (countEntries === undefined) return asRaw(sessionManager.getEntries())
    const sessionId = sessionManager.getSessionId()
    const count = countEntries()
    if (copied !== undefined && copied.count === count && copied.sessionId === sessionId) return copied.entries
    const entries = asRaw(sessionManager.getEntries())
    copied = { sessionId, count, entries }
    return entries
  })
  return PiSession.of({
    sessionId: sessionManager.getSessionId(),
    parentSessionId: Effect.sync(() => readSessionId(sessionManager.getHeader()?.parentSession)),
    cwd: ctx.cwd,
    agentDir: getAgentDir(),
    entries,
    rawBranch,
    branch: Effect.map(rawBranch, (entries) => entries.map(classifyEntry)),
    branchTail: (isStart) =>
      Effect.sync(() => {
        const tail: Array<RawEntry> = []
        let entry = sessionManager.getLeafEntry() as RawEntry | undefined
        while (entry !== undefined) {
          tail.push(entry)
          if (isStart(entry) || entry.parentId === null) break
          entry = sessionManager.getEntry(entry.parentId) as RawEntry | undefined
        }
        return tail.reverse()
      }),
    rawBranchAt: (id) => Effect.sync(() => asRaw(sessionManager.getBranch(id))),
    leafId: Effect.sync(() => sessionManager.getLeafId()),
    contextUsage: guarded("context usage", Option.none(), () =>
      Option.fromNullishOr(ctx.getContextUsage()).pipe(Option.map(({ tokens, contextWindow }) => ({ tokens, contextWindow })))),
    model: guarded("model", Option.none(), () =>
      Option.fromNullishOr(ctx.model).pipe(
        Option.map((model) => ({
          provider: model.provider,
          id: model.id,
          contextWindow: model.contextWindow,
          ...(typeof model.cost?.input === "number" && model.cost.input > 0 ? { inputPrice: model.cost.input } : {})
        }))
      )),
    settings: guarded("settings", {}, () => pi.getSettings() as unknown as Readonly<Record<string, unknown>>),
    isProjectTrusted: guarded("project trust", false, () => ctx.isProjectTrusted()),
    isIdle: guarded("idle state", false, () => ctx.isIdle()),
    hasQueuedMessages: guarded("message queue", false, () => ctx.hasPendingMessages()),
    appendCustomEntry: (customType, data) => Effect.sync(() => pi.appendEntry(customType, data)),
    hideFromPiContext: (ids) =>
      typeof appendContextEdit !== "function" ? Effect.void : Effect.forEach(
        batches(ids),
        // Between batches Pi's TUI redraws, Escape is read and a SIGTERM ends the process.
        (batch, index) => index === 0 ? hideBatch(batch) : Effect.andThen(eventLoopTurn, hideBatch(batch)),
        { discard: true }
      ),
    writesInHook: typeof appendContextEdit === "function" && typeof appendCustomMessageEntry === "function",
    appendHiddenMessage: (message) =>
      typeof appendCustomMessageEntry !== "function"
        ? Effect.void
        : Effect.sync(() => void appendCustomMessageEntry.call(sessionManager, message.customType, message.content, false, message.details)),
    sendMessage: (message, options) =>
      Effect.sync(() =>
        pi.sendMessage(
          { customType: message.customType, content: message.content, display: message.display, details: message.details },
          // An explicit `false` defers a hidden append to the end of a running turn instead of steering it.
          { triggerTurn: options?.triggerTurn === true }
        )
      ),
    // A notice or status that cannot be shown (a UI gone with its session) is dropped, never a failed hook.
    notify: (message, level = "info") => quietly(() => ctx.ui.notify(message, level)),
    showReport: (report) => quietly(() => surface.show(pi, ctx, report)),
    chatShowsEntries: Effect.try({ try: () => surface.chatShowsEntries(ctx), catch: (error) => error }).pipe(Effect.orElseSucceed(() => false)),
    setStatus: (text, tone = "normal") => quietly(() => ctx.ui.setStatus("pi-context", text === undefined ? text : colourStatus(ctx, text, tone))),
    askUser: (question) =>
      // Only Pi's interactive TUI has someone to answer; RPC's client is a program, print mode has nobody.
      !ctx.hasUI || ctx.mode !== "tui"
        ? Effect.succeed("unavailable" as const)
        : Effect.tryPromise(() => askInDialog(ctx, question)).pipe(Effect.orElseSucceed(() => "unavailable" as const)),
    offeredToolsJson: (names) =>
      Effect.sync(() => {
        try {
          const active = typeof pi.getActiveTools === "function" ? new Set(pi.getActiveTools()) : undefined
          const tools = typeof pi.getAllTools === "function" ? pi.getAllTools() : []
          return JSON.stringify(tools.filter((tool) => names.includes(tool.name) && (active === undefined || active.has(tool.name)))
            .map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })))
        } catch {
          return "[]"
        }
      }),
    offerTools: (names, offered) =>
      // A Pi without the active-tools API offers every tool, always.
      typeof pi.getActiveTools !== "function" || typeof pi.setActiveTools !== "function" ? Effect.void : quietly(() => {
        const active = pi.getActiveTools()
        const next = offered ? [...active, ...names.filter((name) => !active.includes(name))] : active.filter((name) => !names.includes(name))
        // Pi records each change of the tool set as a new system message: only a real change is made.
        if (next.length !== active.length) pi.setActiveTools(next)
      }),
    abort: Effect.sync(() => ctx.abort()),
    interruptOnAbort: (effect) => (ctx.signal ? interruptWhenAborted(ctx.signal)(effect) : effect)
  })
}

const quietly = (show: () => void): Effect.Effect<void> => Effect.ignore(Effect.try({ try: show, catch: (error) => error }))
