import { Clock, Effect } from "effect"
import { type NotesIdentity, piContextSetting } from "../domain/notes/identity.ts"
import { DefaultStaleDays, lintNotes, renderLint } from "../domain/notes/lint.ts"
import { NotesStore } from "../services/NotesStore.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"

const staleDaysOf = (value: unknown): number =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : DefaultStaleDays

/** The doctor's notes lint lines (setting `pi-context.staleNoteDays`, default 90). */
export const notesLintLines = (identity: NotesIdentity) =>
  Effect.gen(function*() {
    const settings = yield* (yield* PiSession).settings
    const policy = yield* (yield* Thresholds).policy
    const staleDays = staleDaysOf(piContextSetting(settings, "staleNoteDays"))
    const notes = yield* (yield* NotesStore).readAll(identity)
    const findings = lintNotes({ notes, now: yield* Clock.currentTimeMillis, staleDays, bootBudgetTokens: policy.bootBudgetTokens.value })
    return renderLint(findings, staleDays)
  })
