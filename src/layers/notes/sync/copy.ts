import { createHash } from "node:crypto"
import { Effect, FileSystem, Path, type PlatformError } from "effect"
import { conflictCopyPath, copyInAction, isConflictCopy, type SyncTree } from "../../../domain/notes/syncPlan.ts"
import { type DiskOps, isNotFound, walkNotes, writeAtomically } from "../disk.ts"
import { makeNoteLocks } from "../lock.ts"

/**
 * Copying notes between the homes and a mirror's work tree. What a note
 * had when it was copied in is remembered (`Base`: its hash at the path the
 * remote's tree gives it), so a note is only ever overwritten from the mirror
 * when it still has that text: a note the model writes while a sync runs
 * keeps its new text, and the next sync finds both sides changed.
 */

/** Each synced note's hash, by its path in the remote's tree, as this machine and the mirror last agreed on it. */
export type Base = Map<string, string>

export const hashOf = (text: string | undefined): string | undefined =>
  text === undefined ? undefined : createHash("sha256").update(text).digest("hex")

/** A note in the remote's tree: its path there, and its file in its home. */
export interface TreeNote {
  readonly key: string
  readonly tree: SyncTree
  /** Path inside the home. */
  readonly relative: string
}

/** A note to write back from the mirror, and the hash its home's file must still have (undefined: absent). */
export interface CopyBack {
  readonly note: TreeNote
  readonly expected: string | undefined
}

const readText = (ops: DiskOps, file: string) =>
  ops.fs.readFileString(file).pipe(
    Effect.map((text): string | undefined => text),
    Effect.catchIf(isNotFound, () => Effect.succeed(undefined))
  )

const notesUnder = (ops: DiskOps, dir: string) =>
  Effect.map(walkNotes(ops, dir), (files) => files.filter((file) => !isConflictCopy(file.relative)).map((file) => file.relative))

/** Where a mirror holds a note. */
const mirrorFile = (ops: DiskOps, mirrorDir: string, note: TreeNote) => ops.path.join(mirrorDir, ...note.key.split("/"))
const homeFile = (ops: DiskOps, note: TreeNote) => ops.path.join(note.tree.dir, ...note.relative.split("/"))

export interface CopiedIn {
  /** Notes the mirror took from the homes. */
  readonly changed: number
  /** Notes only the mirror changed (a pull not yet copied back): for the copy back. */
  readonly back: ReadonlyArray<CopyBack>
  /** Notes both changed since they last agreed: the mirror took this machine's text; the mirror's is kept beside the note. */
  readonly conflicts: ReadonlyArray<{ readonly note: TreeNote; readonly theirs: string }>
  /** Each note's hash in its home as it was copied in, by key. */
  readonly here: ReadonlyMap<string, string | undefined>
}

/** Copies every changed note of `trees` into the mirror's work tree (deletions too), deciding note by note with `copyInAction`. */
export const copyIn = Effect.fnUntraced(function*(mirrorDir: string, trees: ReadonlyArray<SyncTree>, base: Base) {
  const ops: DiskOps = { fs: yield* FileSystem.FileSystem, path: yield* Path.Path }
  let changed = 0
  const back: Array<CopyBack> = []
  const conflicts: Array<{ readonly note: TreeNote; readonly theirs: string }> = []
  const here = new Map<string, string | undefined>()
  for (const tree of trees) {
    const [homeNotes, mirrorNotes] = yield* Effect.all([notesUnder(ops, tree.dir), notesUnder(ops, ops.path.join(mirrorDir, ...tree.prefix.split("/")))])
    for (const relative of new Set([...homeNotes, ...mirrorNotes])) {
      const note: TreeNote = { key: `${tree.prefix}/${relative}`, tree, relative }
      const [hereText, mirrorText] = yield* Effect.all([readText(ops, homeFile(ops, note)), readText(ops, mirrorFile(ops, mirrorDir, note))])
      const hereHash = hashOf(hereText)
      here.set(note.key, hereHash)
      const action = copyInAction(hereHash, hashOf(mirrorText), base.get(note.key))
      if (action === "ToHome") {
        back.push({ note, expected: hereHash })
        continue
      }
      if (action !== "Same") {
        const target = mirrorFile(ops, mirrorDir, note)
        if (hereText === undefined) yield* ops.fs.remove(target)
        else {
          yield* ops.fs.makeDirectory(ops.path.dirname(target), { recursive: true })
          yield* ops.fs.writeFileString(target, hereText)
        }
        changed += 1
        if (action === "Conflict" && mirrorText !== undefined) conflicts.push({ note, theirs: mirrorText })
      }
      if (hereHash === undefined) base.delete(note.key)
      else base.set(note.key, hereHash)
    }
  }
  return { changed, back, conflicts, here } satisfies CopiedIn
})

/**
 * Writes each note back from the mirror into its home (or deletes it) under
 * the note's lock, and only when the home's file still has the text it had
 * when it was copied in; the others wait for the next sync. How many were written.
 */
export const copyBack = Effect.fnUntraced(function*(mirrorDir: string, notes: ReadonlyArray<CopyBack>, base: Base) {
  const ops: DiskOps = { fs: yield* FileSystem.FileSystem, path: yield* Path.Path }
  const { withNoteLocks } = makeNoteLocks(ops)
  let written = 0
  for (const { note, expected } of notes) {
    const text = yield* readText(ops, mirrorFile(ops, mirrorDir, note))
    const file = homeFile(ops, note)
    // The lock's own file is made beside the note.
    yield* ops.fs.makeDirectory(ops.path.dirname(file), { recursive: true })
    const wrote = yield* withNoteLocks(
      [file],
      note.key,
      Effect.gen(function*() {
        if (hashOf(yield* readText(ops, file)) !== expected) return false
        if (text === undefined) yield* ops.fs.remove(file).pipe(Effect.catchIf(isNotFound, () => Effect.void))
        else yield* writeAtomically(ops, file, new TextEncoder().encode(text))
        return true
      })
    )
    if (!wrote) continue
    written += 1
    const hash = hashOf(text)
    if (hash === undefined) base.delete(note.key)
    else base.set(note.key, hash)
  }
  return written
})

/** Writes the other side's text beside the note, under a name no file has yet; the copy's path in the home. */
export const writeConflictCopy = Effect.fnUntraced(function*(note: TreeNote, theirs: string, atMs: number) {
  const ops: DiskOps = { fs: yield* FileSystem.FileSystem, path: yield* Path.Path }
  for (let attempt = 1;; attempt++) {
    const relative = conflictCopyPath(note.relative, atMs, attempt)
    const file = ops.path.join(note.tree.dir, ...relative.split("/"))
    if (yield* ops.fs.exists(file)) continue
    yield* ops.fs.makeDirectory(ops.path.dirname(file), { recursive: true })
    yield* writeAtomically(ops, file, new TextEncoder().encode(theirs))
    return { relative, file }
  }
})

/** A JSON file of the mirror's own (`Base`, the conflicts listed); missing or unreadable is empty. */
export const readJson = <A>(file: string, empty: A) =>
  FileSystem.FileSystem.use((fs) =>
    fs.readFileString(file).pipe(
      Effect.flatMap((text) => Effect.try({ try: () => JSON.parse(text) as A, catch: () => empty })),
      Effect.orElseSucceed(() => empty)
    )
  )

export const writeJson = (file: string, value: unknown): Effect.Effect<void, PlatformError.PlatformError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const ops: DiskOps = { fs: yield* FileSystem.FileSystem, path: yield* Path.Path }
    yield* writeAtomically(ops, file, new TextEncoder().encode(JSON.stringify(value)))
  })
