import { Cause, Effect } from "effect"
import { bootMessage, continuationMessage, inspectBranch } from "../../domain/boundary.ts"
import { CommandName } from "../../domain/protocol.ts"
import { type BootBuildFailed, Boots } from "../../services/Boots.ts"
import { Enabled } from "../../services/Enabled.ts"
import { PiSession } from "../../services/PiSession.ts"
import { Trace } from "../../services/Trace.ts"
import { Window } from "../../services/Window.ts"
import type { Boundaries } from "./boundaries.ts"

/** Start-up and tree navigation: repair a marker tail, give a root window its boot, report unreadable entries. */
export const makeStartup = (boundaries: Boundaries) => Effect.gen(function*() {
  const trace = yield* Trace
  const boots = yield* Boots
  const { current: currentWindow, spans: windowSpans } = yield* Window
  const enabled = (yield* Enabled).current

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
        yield* session.notify(
          `pi-context: the reset boundary of window w${(yield* currentWindow).ordinal} is incomplete and cannot be repaired safely: ` +
            `${inspection.reason}. Run /${CommandName.wipeMemory} to start a fresh window.`,
          "warning"
        )
        return
      }
      case "Repair": {
        const rendered = inspection.missing.includes("boot")
          ? yield* boots.renderCounted({ windowId: inspection.windowId, previousWindowId: undefined })
          : undefined
        if (rendered !== undefined) {
          yield* session.sendMessage(bootMessage(inspection.windowId, rendered.text))
          yield* boots.tellIncomplete(inspection.windowId, rendered)
        }
        yield* session.sendMessage(continuationMessage())
        yield* trace.info("repair.appended", { windowId: inspection.windowId, missing: inspection.missing.join(",") })
      }
    }
  })

  /** A root window gets this session's boot, so a fork never keeps its parent's identity. */
  const ensureRootBoot = Effect.gen(function*() {
    const session = yield* PiSession
    const window = yield* currentWindow
    if (!window.isRoot || !(yield* enabled)) return
    if (window.tail.some((entry) => entry._tag === "Boot" && entry.windowId === window.id)) return
    const boot = yield* boots.renderCounted({ windowId: window.id, previousWindowId: undefined })
    yield* session.sendMessage(bootMessage(window.id, boot.text))
    yield* boots.tellIncomplete(window.id, boot)
    yield* trace.info("boot.root", { windowId: window.id })
  })

  /** Entries that claim to be pi-context's but do not decode are ignored; the user hears of it once. */
  const reportUnreadable = Effect.gen(function*() {
    const session = yield* PiSession
    const unreadable = (yield* session.branch).flatMap((entry) => (entry._tag === "Foreign" && entry.ours ? [entry] : []))
    if (unreadable.length === 0) return
    yield* trace.info("entries.unreadable", { count: unreadable.length, first: unreadable[0]!.reason })
    yield* session.notify(
      `pi-context: ignored ${unreadable.length} of its entries on this branch that could not be read ` +
        `(${unreadable[0]!.reason}${unreadable.length > 1 ? ", …" : ""}). Nothing else is affected; /${CommandName.piContext} doctor has details.`,
      "warning"
    )
  })

  /** Start-up and `/pi-context on` boots: a failure is told, and start-up goes on. */
  const orReportBootFailure = <A, R>(effect: Effect.Effect<A, BootBuildFailed, R>) =>
    Effect.catchTag(effect, "BootBuildFailed", (error) => boundaries.reportBootFailure(error.windowId, Cause.fail(error)))

  return { repairTail, ensureRootBoot, reportUnreadable, orReportBootFailure }
})
