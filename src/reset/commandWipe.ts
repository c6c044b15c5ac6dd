import { Clock, Effect } from "effect"
import { PiSession } from "../kernel/PiSession.ts"
import { Trace } from "../trace/Trace.ts"
import type { BoundaryDraft } from "./boundary.ts"
import { writeDrafts } from "./writeDrafts.ts"
import type { Boundaries } from "./boundaries.ts"
import { type CurrentWindow, Window } from "../window/Window.ts"
import type { ResetControl } from "./control.ts"
import { untouchedNotice, waitingNotice } from "./resetView.ts"

/** A reset window that holds nothing said since its boot: no message (the user's, the model's, a `!` command's), no reminder, no summary. */
const isUntouched = (window: CurrentWindow): boolean =>
  !window.isRoot &&
  !window.tail.some((entry) => entry._tag === "Message" || entry._tag === "Reminder" || entry._tag === "Compaction" || entry._tag === "BranchSummary")

/**
 * The user's `/wipe-memory`: marker, boot and continuation appended in a row
 * while Pi is idle, never between a tool call and its result. Idleness is
 * checked again after the boot is rendered (a prompt may have started a run
 * meanwhile); a busy session gets its boundary when the run settles.
 */
export const makeCommandWipe = (boundaries: Boundaries, { step, resetTransient, updateStatus }: ResetControl) => Effect.gen(function*() {
  const trace = yield* Trace
  const windows = yield* Window

  const wait = (windowId: string) =>
    Effect.gen(function*() {
      const session = yield* PiSession
      const transition = yield* step({
        _tag: "CommandWipe",
        windowId,
        idle: false,
        at: yield* Clock.currentTimeMillis,
        queuedBefore: yield* session.hasQueuedMessages
      })
      yield* trace.info("command.wipe", { effect: transition.effect._tag, reason: transition.effect.reason ?? "" })
      yield* session.notify(waitingNotice, "info")
      yield* updateStatus
    })

  /**
   * Commits the boundary, appended while Pi is idle; when a run has started
   * (before the boot was rendered, or while it was), waits for it to settle.
   * `waited`: the run this command waited for has settled. `source`:
   * `hard-line` when `/pi-context on` finds the idle window past its hard
   * line, so the divider says why the window ended.
   */
  const appendWhenIdle = (waited: string | undefined, source: "command" | "hard-line" = "command") => Effect.gen(function*() {
    const session = yield* PiSession
    const window = yield* windows.current
    if (!(yield* session.isIdle)) return yield* wait(window.id)
    // A window where nothing was said since its boot has nothing to end: another reset would only open an empty one.
    if (waited === undefined && source === "command" && isUntouched(window)) {
      yield* trace.info("command.wipe", { effect: "none", reason: `w${window.ordinal} is untouched since its boot` })
      return yield* session.notify(untouchedNotice(window.ordinal), "info")
    }
    const append = (drafts: ReadonlyArray<BoundaryDraft>) =>
      Effect.gen(function*() {
        // From this check to the last append only the context edits' batches yield (to the event loop, not to a
        // prompt: Pi's TUI holds the next input until this command returns).
        if (!(yield* session.isIdle)) return false
        yield* step({ _tag: "CommandWipe", windowId: window.id, idle: true })
        yield* writeDrafts(drafts, (draft) => session.sendMessage(draft))
        yield* resetTransient
        return true
      })
    const commit = yield* boundaries.commit(window, source, waited ?? "/wipe-memory while idle", { _tag: "AppendedNow", append })
    if (commit._tag === "Busy") return yield* wait(window.id)
    yield* updateStatus
  })

  return { appendWhenIdle }
})
