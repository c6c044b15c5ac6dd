import { Clock, Effect, Option } from "effect"
import type { BarScale } from "../domain/window/view.ts"
import { windowsWithNoteChanges } from "../services/NotesHistory.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"
import { report, subcommand } from "./Subcommand.ts"

/** `/pi-context windows`: every window of this branch with its facts, and the scale its bars are drawn against. */
const windowsReport = Effect.gen(function*() {
  const windows = yield* windowsWithNoteChanges
  const policy = yield* (yield* Thresholds).policy
  const model = Option.getOrUndefined(yield* (yield* PiSession).model)
  const scale: BarScale | undefined = model === undefined || !(model.contextWindow > 0)
    ? undefined
    : { contextWindow: model.contextWindow, warningLine: policy.lines.warning.value, hardLine: policy.lines.hard.value }
  return { windows, scale, shownAt: yield* Clock.currentTimeMillis }
})

/** A report: the windows view in Pi's TUI, plain text in print and RPC modes. */
export const windows = subcommand({ name: "windows", run: () => Effect.map(windowsReport, (facts) => report({ kind: "windows", ...facts })) })
