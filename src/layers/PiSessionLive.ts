import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { closeSync, openSync, readSync } from "node:fs"
import { getAgentDir } from "@earendil-works/pi-coding-agent"
import { Effect, Option } from "effect"
import { classifyEntry, type RawEntry } from "../domain/entries.ts"
import { PiSession } from "../services/PiSession.ts"
import { interruptWhenAborted } from "./abort.ts"

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
    contextUsage: Effect.sync(() => Option.fromNullishOr(ctx.getContextUsage())),
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
    setStatus: (text) => Effect.sync(() => ctx.ui.setStatus("pi-context", text)),
    abort: Effect.sync(() => ctx.abort()),
    interruptOnAbort: (effect) => (ctx.signal ? interruptWhenAborted(ctx.signal)(effect) : effect)
  })
}
