import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { closeSync, openSync, readSync } from "node:fs"
import { getAgentDir } from "@earendil-works/pi-coding-agent"
import { Effect, Layer, Option } from "effect"
import type { StatusTone } from "../domain/budget.ts"
import { classifyEntry, type RawEntry } from "../domain/entries.ts"
import { interruptWhenAborted, PiSession } from "../services/PiSession.ts"

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

/** Wraps one Pi event's `ctx` as the PiSession port. Cheap: built per event. */
/** Pi's own footer turns yellow, then red, as the window fills: the status line takes the same theme colours. */
const colourStatus = (ctx: ExtensionContext, text: string, tone: StatusTone): string => {
  if (tone === "normal") return text
  const theme = ctx.hasUI ? ctx.ui.theme : undefined
  return typeof theme?.fg === "function" ? theme.fg(tone === "warning" ? "error" : "warning", text) : text
}

export const make = (pi: ExtensionAPI, ctx: ExtensionContext): PiSession["Service"] => {
  const sessionManager = ctx.sessionManager
  const rawBranch = Effect.sync(() => asRaw(sessionManager.getBranch()))
  return PiSession.of({
    sessionId: sessionManager.getSessionId(),
    parentSessionId: Effect.sync(() => readSessionId(sessionManager.getHeader()?.parentSession)),
    cwd: ctx.cwd,
    agentDir: getAgentDir(),
    entries: Effect.sync(() => asRaw(sessionManager.getEntries())),
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
    contextUsage: Effect.sync(() =>
      Option.fromNullishOr(ctx.getContextUsage()).pipe(Option.map(({ tokens, contextWindow }) => ({ tokens, contextWindow })))
    ),
    model: Effect.sync(() =>
      Option.fromNullishOr(ctx.model).pipe(
        Option.map((model) => ({ provider: model.provider, id: model.id, contextWindow: model.contextWindow }))
      )
    ),
    settings: Effect.sync(() => pi.getSettings() as unknown as Readonly<Record<string, unknown>>),
    isProjectTrusted: Effect.sync(() => ctx.isProjectTrusted()),
    isIdle: Effect.sync(() => ctx.isIdle()),
    appendCustomEntry: (customType, data) => Effect.sync(() => pi.appendEntry(customType, data)),
    sendMessage: (message, options) =>
      Effect.sync(() =>
        pi.sendMessage(
          { customType: message.customType, content: message.content, display: message.display, details: message.details },
          // An explicit `false` defers a hidden append to the end of a running turn instead of steering it.
          { triggerTurn: options?.triggerTurn === true }
        )
      ),
    notify: (message, level = "info") => Effect.sync(() => ctx.ui.notify(message, level)),
    setStatus: (text, tone = "normal") => Effect.sync(() => ctx.ui.setStatus("pi-context", text === undefined ? text : colourStatus(ctx, text, tone))),
    abort: Effect.sync(() => ctx.abort()),
    interruptOnAbort: (effect) => (ctx.signal ? interruptWhenAborted(ctx.signal)(effect) : effect)
  })
}

export const layer = (pi: ExtensionAPI, ctx: ExtensionContext): Layer.Layer<PiSession> =>
  Layer.succeed(PiSession, make(pi, ctx))
