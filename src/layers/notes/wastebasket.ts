import { Effect } from "effect"
import { formatAddress, type Home, Homes } from "../../domain/notes/address.ts"
import { type NotesIdentity, wastebasketDirectory } from "../../domain/notes/identity.ts"
import { compareRecentFirst } from "../../domain/notes/paging.ts"
import type { NoteRow } from "../../domain/notes/snapshot.ts"
import { type DiskOps, statPaths, walkNotes } from "./disk.ts"
import { notesIoError } from "./errors.ts"

/**
 * A retired note keeps its address inside its home's wastebasket, so the
 * history shows it as moved, and a restore knows where to bring it back.
 */
export const retiredFile = (ops: DiskOps, identity: NotesIdentity, home: Home, notePath: string): string =>
  ops.path.join(wastebasketDirectory(identity, home, ops.path.join), ...notePath.split("/"))

/** Moves `file` into the wastebasket at `binned`, replacing an earlier retired copy (the history keeps it). */
export const moveToWastebasket = Effect.fnUntraced(function*(ops: DiskOps, file: string, binned: string, nowMs: number) {
  yield* ops.fs.makeDirectory(ops.path.dirname(binned), { recursive: true })
  yield* ops.fs.rename(file, binned)
  // Its age in the wastebasket listing counts from the retirement.
  const now = new Date(nowMs)
  yield* Effect.ignore(ops.fs.utimes(binned, now, now))
})

/** Retired notes of `homes`, most recently retired first, with their addresses as they were. */
export const listWastebasket = (ops: DiskOps, identity: NotesIdentity, homes: ReadonlyArray<Home>) =>
  Effect.forEach(homes, (home) => {
    const dir = wastebasketDirectory(identity, home, ops.path.join)
    return walkNotes(ops, dir).pipe(
      Effect.flatMap((files) =>
        Effect.map(statPaths(files.map((file) => file.absolute)), (kinds) =>
          files.flatMap((file, i): ReadonlyArray<NoteRow> => {
            const kind = kinds[i]
            return kind?._tag === "File"
              ? [{ home, address: formatAddress({ home, path: file.relative }), bytes: kind.bytes, updatedMs: kind.updatedMs, title: "" }]
              : []
          }))
      ),
      Effect.mapError(notesIoError(ops.path, { address: { home, path: "" }, shown: "the wastebasket", homeDir: dir }, "list"))
    )
  }).pipe(Effect.map((rows) => rows.flat().sort(compareRecentFirst)))

export const allHomes = (home: Home | undefined): ReadonlyArray<Home> => (home === undefined ? Homes : [home])
