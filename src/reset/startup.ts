import { Cause, Effect, Option, Ref } from "effect"
import { bootMessage, continuationMessage } from "./boundary.ts"
import { type BootBuildFailed, Boots, type RenderedBoot } from "../boot/Boots.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Trace } from "../trace/Trace.ts"
import { Window } from "../window/Window.ts"
import type { Boundaries } from "./boundaries.ts"
import { inspectBranch } from "../window/tail.ts"
import { stillInPiContext } from "../window/piContext.ts"
import type { RawEntry } from "../kernel/entries.ts"
import { unreadableNotice, unrepairableNotice } from "./resetView.ts"

/**
 * What Pi's own context still holds of the window before the last marker,
 * the last window's own entries left out: what a reset cut off among its
 * context edits did not hide. Each window's reset hid everything before it,
 * so the window before the marker is all there is to look at.
 */
const leftInPiContext = (spans: ReadonlyArray<{ readonly entries: ReadonlyArray<RawEntry> }>): ReadonlyArray<string> => {
  const previous = spans.at(-2)
  const last = spans.at(-1)
  if (previous === undefined || last === undefined) return []
  const own = new Set(last.entries.map((entry) => entry.id))
  return stillInPiContext([...previous.entries, ...last.entries]).filter((id) => !own.has(id))
}

/** Start-up and tree navigation: repair a marker tail, give a root window its boot, report unreadable entries. */
export const makeStartup = (boundaries: Boundaries) => Effect.gen(function*() {
  const trace = yield* Trace
  const boots = yield* Boots
  const { current: currentWindow, spans: windowSpans, unreadable: unreadableEntries, enabled } = yield* Window

  /** Appends what a marker tail is missing, or refuses with one notice. */
  const repairTail = Effect.gen(function*() {
    const session = yield* PiSession
    // Every window: repair must know which window ids already have a boot before the marker.
    const inspection = inspectBranch(yield* windowSpans, session.sessionId)
    switch (inspection._tag) {
      case "NoMarker":
      case "Complete":
        return
      case "Refuse": {
        yield* trace.info("repair.refused", { windowId: inspection.windowId, reason: inspection.reason })
        yield* session.notify(unrepairableNotice((yield* currentWindow).ordinal, inspection.reason), "warning")
        return
      }
      case "Repair": {
        // A reset cut off among its context edits left part of the ended window in Pi's context: hidden now, before the boot.
        const hidden = leftInPiContext(yield* windowSpans)
        if (hidden.length > 0) yield* session.hideFromPiContext(hidden)
        const rendered = inspection.missing.includes("boot")
          ? yield* boots.render({ windowId: inspection.windowId, previousWindowId: undefined })
          : undefined
        if (rendered !== undefined) {
          yield* session.sendMessage(bootMessage(inspection.windowId, rendered.text))
          yield* boots.tellIncomplete(inspection.windowId, rendered)
        }
        yield* session.sendMessage(continuationMessage())
        yield* trace.info("repair.appended", { windowId: inspection.windowId, missing: inspection.missing.join(","), hidden: hidden.length })
      }
    }
  })

  /** The root boot this process wrote, with the notes it indexed: rebuilt while nothing has been sent if they changed. */
  const rootBoot = yield* Ref.make(Option.none<{ readonly windowId: string; readonly notesFingerprint: string }>())

  /** Sends the root window's boot, and remembers what its notes index was built from. */
  const sendRootBoot = (windowId: string, boot: RenderedBoot) =>
    Effect.gen(function*() {
      yield* (yield* PiSession).sendMessage(bootMessage(windowId, boot.text))
      yield* boots.tellIncomplete(windowId, boot)
      yield* Ref.set(rootBoot, Option.some({ windowId, notesFingerprint: boot.notesFingerprint }))
    })

  /** A root window gets this session's boot, so a fork never keeps its parent's identity. */
  const ensureRootBoot = Effect.gen(function*() {
    const window = yield* currentWindow
    if (!window.isRoot || !(yield* enabled)) return
    if (window.tail.some((entry) => entry._tag === "Boot" && entry.windowId === window.id)) return
    yield* sendRootBoot(window.id, yield* boots.render({ windowId: window.id, previousWindowId: undefined }))
    yield* trace.info("boot.root", { windowId: window.id })
  })

  /**
   * Before a prompt's run: while the model has not yet been asked anything in
   * the root window, notes that arrived since its boot was written (the
   * start-up pull of a synced home, a note saved by hand) are in a boot
   * written afresh. The root window's requests use its newest boot, in the
   * first one's place, so nothing the model saw changes under it.
   */
  const refreshRootBoot = Effect.gen(function*() {
    const written = yield* Ref.get(rootBoot)
    if (Option.isNone(written)) return
    const window = yield* currentWindow
    if (!window.isRoot || window.id !== written.value.windowId || window.tally.turns > 0) {
      // Once the model answered, the root boot is what it saw: it stays.
      return yield* Ref.set(rootBoot, Option.none())
    }
    if (!(yield* enabled)) return
    const boot = yield* boots.render({ windowId: window.id, previousWindowId: undefined })
    if (boot.notesFingerprint === written.value.notesFingerprint) return
    yield* sendRootBoot(window.id, boot)
    yield* trace.info("boot.root-refreshed", { windowId: window.id, notesIndexed: boot.notesIndexed })
  })

  /** Entries that claim to be pi-context's but do not decode are ignored; the user hears of it once. */
  const reportUnreadable = Effect.gen(function*() {
    const session = yield* PiSession
    const unreadable = yield* unreadableEntries
    if (unreadable.length === 0) return
    yield* trace.info("entries.unreadable", { count: unreadable.length, first: unreadable[0]!.reason })
    yield* session.notify(unreadableNotice(unreadable.length, unreadable[0]!.reason), "warning")
  })

  /** Start-up and `/pi-context on` boots: a failure is told, and start-up goes on. */
  const orReportBootFailure = <A, R>(effect: Effect.Effect<A, BootBuildFailed, R>) =>
    Effect.catchTag(effect, "BootBuildFailed", (error) => boundaries.reportBootFailure(error.windowId, Cause.fail(error)))

  return { repairTail, ensureRootBoot, refreshRootBoot, reportUnreadable, orReportBootFailure }
})
