import { Clock, Effect, FileSystem, Path } from "effect"
import { Homes } from "../domain/notes/address.ts"
import { parseNote } from "../domain/notes/frontmatter.ts"
import { homeDirectory, type NotesIdentity, piContextSetting } from "../domain/notes/identity.ts"
import { DefaultStaleDays, type LintNote, lintNotes, renderLint } from "../domain/notes/lint.ts"
import { readTexts, statPaths, walkNotes } from "../layers/notes/disk.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"

/** Every readable note of the five homes, with its body; an unreadable home or note is left out (doctor reports homes). */
const readAllNotes = (identity: NotesIdentity) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const ops = { fs, path }
    const perHome = yield* Effect.forEach(Homes, (home) =>
      Effect.gen(function*() {
        const files = yield* walkNotes(ops, homeDirectory(identity, home, path.join)).pipe(Effect.orElseSucceed(() => []))
        const absolute = files.map((file) => file.absolute)
        const [kinds, texts] = yield* Effect.all([statPaths(absolute).pipe(Effect.orElseSucceed(() => [])), readTexts(absolute)])
        return files.flatMap((file, i): ReadonlyArray<LintNote> => {
          const kind = kinds[i]
          const text = texts[i]
          return kind?._tag === "File" && typeof text === "string"
            ? [{ home, path: file.relative, body: parseNote(text).body, updatedMs: kind.updatedMs }]
            : []
        })
      }), { concurrency: "unbounded" })
    return perHome.flat()
  })

const staleDaysOf = (value: unknown): number =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : DefaultStaleDays

/** The doctor's notes lint lines (setting `pi-context.staleNoteDays`, default 90). */
export const notesLintLines = (identity: NotesIdentity) =>
  Effect.gen(function*() {
    const settings = yield* (yield* PiSession).settings
    const policy = yield* (yield* Thresholds).policy
    const staleDays = staleDaysOf(piContextSetting(settings, "staleNoteDays"))
    const notes = yield* readAllNotes(identity)
    const findings = lintNotes({ notes, now: yield* Clock.currentTimeMillis, staleDays, bootBudgetTokens: policy.bootBudgetTokens.value })
    return renderLint(findings, staleDays)
  })
