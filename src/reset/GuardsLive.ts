import { Effect, Layer, Ref } from "effect"
import { type CompactionFailure, Guards, type GuardVerdict } from "./Guards.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Trace } from "../trace/Trace.ts"
import { Window } from "../window/Window.ts"
import * as TraceLive from "../trace/TraceLive.ts"
import * as WindowLive from "../window/WindowLive.ts"
import { compactionNotice, compactionRefusedNotice, treeNotice } from "./resetView.ts"

export const layerWithoutDependencies = Layer.effect(
  Guards,
  Effect.gen(function*() {
    const trace = yield* Trace
    const windows = yield* Window
    const currentWindow = windows.current
    const enabled = windows.enabled
    /** Windows in which the user was told that automatic compaction is cancelled. */
    const compactionNoticeShown = yield* Ref.make<ReadonlySet<string>>(new Set())
    /** A /tree summary was blocked: its notice waits for the branch Pi navigates to. */
    const treeNoticeDue = yield* Ref.make(false)

    const compactionGuard = (reason: "manual" | "threshold" | "overflow") =>
      Effect.gen(function*() {
        const session = yield* PiSession
        const marked = yield* windows.hasReset
        const on = yield* enabled
        const block = on || marked
        yield* trace.info("compaction.guard", { reason, verdict: block ? "Block" : "Allow" })
        if (!block) return "Allow" as GuardVerdict
        const window = yield* currentWindow
        const told = yield* Ref.getAndUpdate(compactionNoticeShown, (shown) => new Set([...shown, window.id]))
        if (reason === "manual" || !told.has(window.id)) yield* session.notify(compactionNotice(marked, on), "warning")
        return "Block" as GuardVerdict
      })

    const compactionFailed = (failure: CompactionFailure) =>
      Effect.gen(function*() {
        // Aborted or cancelled (by the guard above, which told why): nothing more to say. Pi's automatic attempts stay quiet.
        if (failure.reason !== "manual" || failure.aborted || failure.errorMessage === undefined) return
        const marked = yield* windows.hasReset
        const on = yield* enabled
        yield* trace.info("compaction.failed", { reason: failure.reason, error: failure.errorMessage, told: on || marked })
        if (!(on || marked)) return
        yield* (yield* PiSession).notify(compactionRefusedNotice(marked, on, failure.errorMessage), "warning")
      })

    const treeSummaryGuard = (targetId: string, userWantsSummary: boolean) =>
      Effect.gen(function*() {
        yield* Ref.set(treeNoticeDue, false)
        if (!userWantsSummary) return "Allow" as GuardVerdict
        const marked = (yield* windows.hasReset) || (yield* windows.hasResetAt(targetId))
        yield* trace.info("tree.guard", { marked })
        if (!marked) return "Allow" as GuardVerdict
        yield* Ref.set(treeNoticeDue, true)
        return "Block" as GuardVerdict
      })

    /**
     * After the navigation, on the branch it reached: Pi redraws the chat from
     * that branch and then shows "Navigated to selected point", which would
     * replace a notice, and a chat entry made before it would stay on the old branch.
     */
    const showTreeNotice = Effect.gen(function*() {
      if (!(yield* Ref.getAndSet(treeNoticeDue, false))) return
      yield* (yield* PiSession).showReport(treeNotice)
    })

    return Guards.of({ compactionGuard, compactionFailed, treeSummaryGuard, showTreeNotice })
  })
)

/** The guards with the trace, the window room and the on/off state they read. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(Layer.mergeAll(TraceLive.layer, WindowLive.layer)))

/** For tests: over a silent trace and the default policy, the services they read kept in the context. */
export const layerTest = layerWithoutDependencies.pipe(Layer.provideMerge(Layer.mergeAll(TraceLive.layerTest, WindowLive.layerTest)))
