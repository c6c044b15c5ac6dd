import { Clock, Effect, Option } from "effect"
import { withNoteChanges } from "../notes/versions/windowChanges.ts"
import { sessionSignals } from "../window/signals.ts"
import { NotesVersions } from "../notes/versions/NotesVersions.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { Window } from "../window/Window.ts"
import { report, subcommand } from "../kernel/Subcommand.ts"
import type { BarScale } from "../kernel/report.ts"

/** How long the windows view waits for the boundary commits still in flight (a command, not a tool call). */
export const ViewCommitWaitMs = 5_000

/**
 * Every window of this branch with its facts, each with the note changes its history commits hold when there is a
 * history, once the commits in flight have landed or `waitForCommitsMs` has passed (a window still being committed
 * says so).
 */
export const windowsWithNoteChanges = (waitForCommitsMs: number) =>
  Effect.gen(function*() {
    const room = yield* Window
    const windows = yield* room.windows
    // How each window that began at a reset picked up, as /pi-context report tells it.
    // (The summary budget only prices the compaction a reset avoided, which the view does not show.)
    const signals = sessionSignals(yield* room.spans, windows, 0).windows
    const picked = windows.map((facts, index) => {
      const signal = signals[index]
      return signal?.notesReadAfterReset === undefined ? facts : { ...facts, pickup: { readNotes: signal.notesReadAfterReset, filesReread: signal.filesReread } }
    })
    return withNoteChanges(picked, yield* (yield* NotesVersions).sessionChanges({ waitForCommitsMs }))
  })

/** `/pi-context windows`: every window of this branch with its facts, and the scale its bars are drawn against. */
const windowsReport = Effect.gen(function*() {
  const windows = yield* windowsWithNoteChanges(ViewCommitWaitMs)
  const policy = yield* (yield* Thresholds).policy
  const model = Option.getOrUndefined(yield* (yield* PiSession).model)
  const scale: BarScale | undefined = model === undefined || !(model.contextWindow > 0)
    ? undefined
    : { contextWindow: model.contextWindow, warningLine: policy.lines.warning.value, hardLine: policy.lines.hard.value }
  return { windows, scale, shownAt: yield* Clock.currentTimeMillis }
})

/** A report: the windows view in Pi's TUI, plain text in print and RPC modes. */
export const windows = subcommand({ name: "windows", run: () => Effect.map(windowsReport, (facts) => report({ kind: "windows", ...facts })) })
