import { Clock, Effect } from "effect"
import { piContextSetting } from "./identity.ts"
import { lintNotes, renderLint } from "./lint.ts"
import { NotesHomes } from "./NotesHomes.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { DefaultStaleDays, positiveWhole } from "../settings/checks.ts"

/** The doctor's notes lint lines (setting `pi-context.staleNoteDays`, default 90). */
export const notesLintLines = Effect.gen(function*() {
  const settings = yield* (yield* PiSession).settings
  const policy = yield* (yield* Thresholds).policy
  const staleDays = positiveWhole(piContextSetting(settings, "staleNoteDays")) ?? DefaultStaleDays
  const notes = yield* (yield* NotesHomes).readAll()
  const findings = lintNotes({ notes, now: yield* Clock.currentTimeMillis, staleDays, bootBudgetTokens: policy.bootBudgetTokens.value })
  return renderLint(findings, staleDays)
})
