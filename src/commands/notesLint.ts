import { Clock, Effect } from "effect"
import { piContextSetting } from "../domain/notes/identity.ts"
import { DefaultStaleDays, lintNotes, renderLint } from "../domain/notes/lint.ts"
import { NotesHomes } from "../services/NotesHomes.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"

const staleDaysOf = (value: unknown): number =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : DefaultStaleDays

/** The doctor's notes lint lines (setting `pi-context.staleNoteDays`, default 90). */
export const notesLintLines = Effect.gen(function*() {
  const settings = yield* (yield* PiSession).settings
  const policy = yield* (yield* Thresholds).policy
  const staleDays = staleDaysOf(piContextSetting(settings, "staleNoteDays"))
  const notes = yield* (yield* NotesHomes).readAll()
  const findings = lintNotes({ notes, now: yield* Clock.currentTimeMillis, staleDays, bootBudgetTokens: policy.bootBudgetTokens.value })
  return renderLint(findings, staleDays)
})
