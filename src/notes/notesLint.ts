import { Clock, Effect } from "effect"
import { piContextSetting } from "./identity.ts"
import { lintNotes, renderLint } from "./lint.ts"
import { NotesHomes } from "./NotesHomes.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { DefaultStaleDays, positiveWhole } from "../settings/checks.ts"
import { Homes } from "../kernel/homes.ts"

/** The doctor's notes lint lines (setting `pi-context.staleNoteDays`, default 90). */
export const notesLintLines = Effect.gen(function*() {
  const settings = yield* (yield* PiSession).settings
  const policy = yield* (yield* Thresholds).policy
  const staleDays = positiveWhole(piContextSetting(settings, "staleNoteDays")) ?? DefaultStaleDays
  const homes = yield* NotesHomes
  const unread = (yield* homes.snapshot()).homes.flatMap((home) => (home._tag === "Unavailable" ? [home.home] : []))
  // Nothing could be read: "no problems" would be claimed of notes no one saw.
  if (unread.length === Homes.length) {
    return ["FAIL notes lint: no note could be read (every home is unreadable), so none was checked; fix the notes root or homes above, then run doctor again"]
  }
  const notes = yield* homes.readAll()
  const findings = lintNotes({ notes, now: yield* Clock.currentTimeMillis, staleDays, bootBudgetTokens: policy.bootBudgetTokens.value })
  return [
    ...(unread.length === 0
      ? []
      : [`FAIL notes lint: the ${unread.join(", ")} ${unread.length === 1 ? "home" : "homes"} could not be read, so ${unread.length === 1 ? "its" : "their"} notes were not checked; fix ${unread.length === 1 ? "it" : "them"} as the notes home lines above say`]),
    ...renderLint(findings, staleDays)
  ]
})
