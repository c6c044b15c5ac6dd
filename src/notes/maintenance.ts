import { Effect, type PlatformError } from "effect"
import { parseNote } from "./frontmatter.ts"
import { homeDirectory, type NotesIdentity } from "./identity.ts"
import type { LintNote } from "./lint.ts"
import { describeMisplaced } from "./placement.ts"
import { describeTakenOver, describeTidyLockRefused, TidyLockGraceMs, TidyLockName } from "./tidyLockRules.ts"
import { TidyLockUnavailable } from "./NotesStore.ts"
import { placeUnder } from "./contain.ts"
import { type DiskOps, describePlatformError, readTexts, statPaths, walkNotes } from "./disk.ts"
import { makeFolders } from "./folders.ts"
import { type LockUnavailable, withLock } from "./lockFile.ts"
import { Homes } from "../kernel/homes.ts"

/** The folder under the notes root that keeps tidy reports. */
export const TidyReportsFolder = "tidy-reports"

/** Every readable note of the five homes, with its body; an unreadable home or note is left out (doctor reports homes). */
export const readAllNotes = (ops: DiskOps, identity: NotesIdentity): Effect.Effect<ReadonlyArray<LintNote>> =>
  Effect.gen(function*() {
    const perHome = yield* Effect.forEach(Homes, (home) =>
      Effect.gen(function*() {
        const files = yield* walkNotes(ops, homeDirectory(identity, home, ops.path.join)).pipe(Effect.orElseSucceed(() => []))
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

/** Writes the report under `<root>/tidy-reports/`, never through a link out of the root; why not, when it was not saved. */
export const saveTidyReport = (ops: DiskOps, root: string, name: string, text: string): Effect.Effect<string | undefined> =>
  Effect.gen(function*() {
    const inside = placeUnder(ops, root, [TidyReportsFolder, name])
    const before = yield* inside
    if (before._tag !== "Inside") return describeMisplaced(before, "the notes root")
    const dir = ops.path.join(root, TidyReportsFolder)
    yield* makeFolders(ops, dir)
    const after = yield* inside
    if (after._tag !== "Inside") return describeMisplaced(after, "the notes root")
    yield* ops.fs.writeFileString(ops.path.join(dir, name), text, { flag: "wx" })
    return undefined
  }).pipe(Effect.catch((error) => Effect.succeed(describePlatformError(error))))

/**
 * Runs `use` holding `<root>/.tidy.lock` for the pass's time limit and a
 * grace, refusing at once while another pass holds it; `use` gets the line to
 * report when a lock whose owner was gone was taken over.
 */
export const withTidyLock = <A, E, R>(ops: DiskOps, root: string, limitMs: number, use: (takenOver: string | undefined) => Effect.Effect<A, E, R>) => {
  const file = ops.path.join(root, TidyLockName)
  const refused = (error: LockUnavailable | PlatformError.PlatformError) =>
    new TidyLockUnavailable({
      message: error._tag === "LockUnavailable"
        ? describeTidyLockRefused(error.blocked, file)
        : `pi-context: tidy could not take its lock in the notes root: ${error.message}`
    })
  return makeFolders(ops, root).pipe(
    Effect.mapError(refused),
    Effect.andThen(withLock(ops, file, limitMs + TidyLockGraceMs, refused, (tookOver) =>
      use(tookOver === undefined ? undefined : describeTakenOver(tookOver.owner, tookOver.ageMs))))
  )
}
