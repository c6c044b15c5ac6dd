import { Effect, Option, PlatformError } from "effect"
import { earlierRetiredName, type NotesIdentity, wastebasketAnchor, wastebasketDirectory } from "./identity.ts"
import type { Placement } from "./placement.ts"
import { compareRecentFirst } from "./paging.ts"
import type { NoteRow } from "./snapshot.ts"
import { placeUnder } from "./contain.ts"
import type { NotesIoError } from "./NotesStore.ts"
import { type DiskOps, isNotFound, type NoteFile, statPaths, walkNotes, writeAtomically } from "./disk.ts"
import { makeFolders } from "./folders.ts"
import { notesIoError } from "./errors.ts"
import { misplacedError } from "./locate.ts"
import { formatAddress, type Home, Homes } from "../kernel/homes.ts"

/**
 * A retired note keeps its address inside its home's wastebasket, so the
 * history shows it as moved, and a restore knows where to bring it back.
 */
export const retiredFile = (ops: DiskOps, identity: NotesIdentity, home: Home, notePath: string): string =>
  ops.path.join(wastebasketDirectory(identity, home, ops.path.join), ...notePath.split("/"))

/** Where a retired note of `home` at `notePath` would go, judged against the root its wastebasket belongs to. */
export const placeRetired = (ops: DiskOps, identity: NotesIdentity, home: Home, notePath: string) => {
  const anchor = wastebasketAnchor(identity, home, ops.path.dirname)
  return Effect.map(
    placeUnder(ops, anchor.base, [...anchor.segments, ...notePath.split("/")]),
    (placement): { readonly placement: Placement; readonly belongsTo: string } => ({ placement, belongsTo: anchor.belongsTo })
  )
}

/** Creates the folder of `binned`; `check` runs again after, since a folder made through a link shows only then. */
export const prepareWastebasket = <E, R>(ops: DiskOps, binned: string, check: Effect.Effect<void, E, R>) =>
  Effect.andThen(check, Effect.andThen(makeFolders(ops, ops.path.dirname(binned)), check))

/** A free name beside `binned` for the copy retired there before, named by when it was retired. */
const earlierCopyName = Effect.fnUntraced(function*(ops: DiskOps, binned: string, retiredMs: number) {
  const dir = ops.path.dirname(binned)
  for (let attempt = 1; ; attempt++) {
    const candidate = ops.path.join(dir, earlierRetiredName(ops.path.basename(binned), retiredMs, attempt))
    const taken = yield* ops.fs.lstat(candidate).pipe(Effect.as(true), Effect.catchIf(isNotFound, () => Effect.succeed(false)))
    if (!taken) return candidate
  }
})

/** A copy retired at `binned` before moves aside, so every version is kept. */
const setEarlierAside = Effect.fnUntraced(function*(ops: DiskOps, binned: string, nowMs: number) {
  const earlier = yield* ops.fs.lstat(binned).pipe(Effect.map(Option.some), Effect.catchIf(isNotFound, () => Effect.succeedNone))
  if (Option.isSome(earlier)) {
    const retiredMs = Option.getOrElse(earlier.value.mtime, () => new Date(nowMs)).getTime()
    yield* ops.fs.rename(binned, yield* earlierCopyName(ops, binned, retiredMs))
  }
})

/** Moves `file` into the wastebasket at `binned`; a copy retired there before moves aside, so every version is kept. */
export const moveToWastebasket = Effect.fnUntraced(function*(ops: DiskOps, file: string, binned: string, nowMs: number) {
  yield* setEarlierAside(ops, binned, nowMs)
  yield* ops.fs.rename(file, binned)
  // Its age in the wastebasket listing counts from the retirement.
  const now = new Date(nowMs)
  yield* Effect.ignore(ops.fs.utimes(binned, now, now))
})

/** Copies `file`, as it is, into the wastebasket at `binned` (an earlier copy there moves aside): the note itself stays. */
export const copyToWastebasket = Effect.fnUntraced(function*(ops: DiskOps, file: string, binned: string, nowMs: number) {
  yield* setEarlierAside(ops, binned, nowMs)
  yield* writeAtomically(ops, binned, yield* ops.fs.readFile(file))
})

/** Retired notes of `homes`, most recently retired first, with their addresses as they were. */
export const listWastebasket = (ops: DiskOps, identity: NotesIdentity, homes: ReadonlyArray<Home>) =>
  Effect.forEach(homes, (home) => {
    const dir = wastebasketDirectory(identity, home, ops.path.join)
    const anchor = wastebasketAnchor(identity, home, ops.path.dirname)
    const place = { address: { home, path: "" }, shown: "the wastebasket", homeDir: dir }
    const walk = placeUnder(ops, anchor.base, anchor.segments).pipe(
      Effect.flatMap((placement): Effect.Effect<ReadonlyArray<NoteFile>, PlatformError.PlatformError | NotesIoError> =>
        placement._tag === "Inside" ? walkNotes(ops, dir) : Effect.fail(misplacedError(place, placement, anchor.belongsTo, "list"))
      )
    )
    return walk.pipe(
      Effect.flatMap((files) =>
        Effect.map(statPaths(files.map((file) => file.absolute)), (kinds) =>
          files.flatMap((file, i): ReadonlyArray<NoteRow> => {
            const kind = kinds[i]
            return kind?._tag === "File"
              ? [{ home, address: formatAddress({ home, path: file.relative }), bytes: kind.bytes, updatedMs: kind.updatedMs, title: "" }]
              : []
          }))
      ),
      Effect.mapError((error) => PlatformError.isPlatformError(error) ? notesIoError(ops.path, place, "list")(error) : error)
    )
  }).pipe(Effect.map((rows) => rows.flat().sort(compareRecentFirst)))

export const allHomes = (home: Home | undefined): ReadonlyArray<Home> => (home === undefined ? Homes : [home])
