import { createHash } from "node:crypto"
import { Effect, FileSystem, Path, PlatformError } from "effect"
import { conflictCopyPath, copyInAction, isConflictCopy, type SkippedPath, type SyncTree } from "./syncPlan.ts"
import { type DiskOps, readRegularText, readTexts, type StatedNote, statNotesUnder, writableWithoutLinks, writeAtomically } from "../disk.ts"
import { makeNoteLocks } from "../lockFile.ts"
import { moveToWastebasket } from "../wastebasket.ts"

/**
 * Copying notes between the homes and a mirror's work tree. What a note
 * had when it was copied in is remembered (`Base`: its hash at the path the
 * remote's tree gives it), so a note is only ever overwritten from the mirror
 * when it still has that text: a note the model writes while a sync runs
 * keeps its new text, and the next sync finds both sides changed.
 */

/** Each synced note's blob, by its path in the remote's tree, as this machine and the mirror last agreed on it. */
export type Base = Map<string, string>

/** The blob each home file had when last read, by key, with the size and time it had then: an unchanged file is not read again. */
export type Seen = Map<string, { readonly stat: string; readonly blob: string }>

/** Git's blob id of a text: the mirror's tree names each note by it, so the mirror is compared without reading it. */
export const hashOf = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined
  const bytes = Buffer.from(text, "utf8")
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex")
}

/**
 * A map loaded from the mirror's own file that tells whether a round changed
 * it: thousands of entries, each set again by every round, written back only
 * when one of them differs.
 */
export class TrackedMap<V> extends Map<string, V> {
  changed = false
  private readonly same: (a: V, b: V) => boolean

  constructor(entries: Iterable<readonly [string, V]>, same: (a: V, b: V) => boolean) {
    super()
    this.same = same
    for (const [key, value] of entries) super.set(key, value)
  }

  override set(key: string, value: V): this {
    const known = super.get(key)
    if (known === undefined || !this.same(known, value)) this.changed = true
    return super.set(key, value)
  }

  override delete(key: string): boolean {
    const had = super.delete(key)
    if (had) this.changed = true
    return had
  }
}

/** How many notes a copy writes at once, each a file of its own. */
const FilesAtOnce = 8

/** A file written this close to being read may change again within its time stamp's resolution: it is read again next time. */
const SettledMs = 2_000

/** A note in the remote's tree: its path there, and its file in its home. */
export interface TreeNote {
  readonly key: string
  readonly tree: SyncTree
  /** Path inside the home. */
  readonly relative: string
}

/** A note to write back from the mirror, and the blob its home's file must still have (undefined: absent). */
export interface CopyBack {
  readonly note: TreeNote
  readonly expected: string | undefined
}

/** Why a note's file cannot be written on one side: a link or a non-folder on its way, put there by the other side or by hand. */
const blockedReason = "a link or another non-note stands where it would be written"

/** Where a mirror holds a note. */
const mirrorFile = (ops: DiskOps, mirrorDir: string, note: TreeNote) => ops.path.join(mirrorDir, ...note.key.split("/"))
const homeFile = (ops: DiskOps, note: TreeNote) => ops.path.join(note.tree.dir, ...note.relative.split("/"))

/** `mkdir -p`, once per folder in one pass: a first pull writes thousands of notes into a few hundred folders. */
const makeFolders = (ops: DiskOps) => {
  const made = new Set<string>()
  return (folder: string) =>
    made.has(folder) ? Effect.void : Effect.tap(ops.fs.makeDirectory(folder, { recursive: true }), () => Effect.sync(() => made.add(folder)))
}

/** Every note of each tree with its size and time, tree by tree, as one look at the homes. */
export type HomesListing = ReadonlyArray<ReadonlyArray<StatedNote>>

export const listHomes = (trees: ReadonlyArray<SyncTree>): Effect.Effect<HomesListing, PlatformError.PlatformError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const ops: DiskOps = { fs: yield* FileSystem.FileSystem, path: yield* Path.Path }
    return yield* Effect.forEach(trees, (tree) => statNotesUnder(ops, tree.dir, isConflictCopy))
  })

/** One hash of every listed note's path, size and time: equal fingerprints, homes unchanged (as far as a stat can tell). */
export const fingerprintOf = (listing: HomesListing): string => {
  const hash = createHash("sha1")
  for (const notes of listing) {
    for (const note of notes) hash.update(`${note.file}\0${note.stat === undefined ? "-" : `${note.stat.bytes}:${note.stat.updatedMs}`}\n`)
    hash.update("\0")
  }
  return hash.digest("hex")
}

export interface CopiedIn {
  /** The keys whose file the mirror's work tree took from the homes (written or deleted). */
  readonly changed: ReadonlyArray<string>
  /** Notes only the mirror changed (a pull not yet copied back): for the copy back. */
  readonly back: ReadonlyArray<CopyBack>
  /** Notes both changed since they last agreed: the mirror took this machine's text; the mirror's is kept beside the note. */
  readonly conflicts: ReadonlyArray<{ readonly note: TreeNote; readonly theirs: string }>
  /** Each note's blob in its home as it was copied in, by key. */
  readonly here: ReadonlyMap<string, string | undefined>
  /** Notes that could not be copied into the mirror without writing through something that is no folder. */
  readonly skipped: ReadonlyArray<SkippedPath>
}

/**
 * Copies every changed note of `trees` into the mirror's work tree (deletions
 * too), deciding note by note with `copyInAction` against `head` (the mirror's
 * tree, by key), from `listing` (the homes are listed when not given). Only
 * notes whose size or time changed since `seen` are read.
 */
export const copyIn = Effect.fnUntraced(function*(
  mirrorDir: string,
  head: ReadonlyMap<string, string>,
  trees: ReadonlyArray<SyncTree>,
  base: Base,
  seen: Seen,
  atMs: number,
  listing?: HomesListing
) {
  const ops: DiskOps = { fs: yield* FileSystem.FileSystem, path: yield* Path.Path }
  const listed = listing ?? (yield* listHomes(trees))
  const back: Array<CopyBack> = []
  const toMirror: Array<{ readonly note: TreeNote; readonly conflict: boolean; readonly present: boolean }> = []
  const here = new Map<string, string | undefined>()
  const texts = new Map<string, string>()
  for (const [treeIndex, tree] of trees.entries()) {
    const notes = listed[treeIndex] ?? []
    const keys = notes.map((note) => `${tree.prefix}/${note.relative}`)
    const unread: Array<{ readonly key: string; readonly file: string; readonly stat: string; readonly updatedMs: number }> = []
    notes.forEach(({ file, stat: kind }, index) => {
      if (kind === undefined) return
      const key = keys[index]!
      const stat = `${kind.bytes}:${kind.updatedMs}`
      const known = seen.get(key)
      if (known !== undefined && known.stat === stat) here.set(key, known.blob)
      else unread.push({ key, file, stat, updatedMs: kind.updatedMs })
    })
    const read = yield* readTexts(unread.map((note) => note.file))
    unread.forEach(({ key, stat, updatedMs }, n) => {
      const text = read[n]
      if (typeof text !== "string") return
      const blob = hashOf(text)!
      here.set(key, blob)
      texts.set(key, text)
      if (atMs - updatedMs > SettledMs) seen.set(key, { stat, blob })
      else seen.delete(key)
    })
    // A file of the remote named like a conflict copy is its own: never taken, never deleted from there.
    const inMirror = [...head.keys()].filter((key) => key.startsWith(`${tree.prefix}/`) && !isConflictCopy(key))
    for (const key of new Set([...keys, ...inMirror])) {
      if (!here.has(key)) here.set(key, undefined)
      const hereBlob = here.get(key)
      const action = copyInAction(hereBlob, head.get(key), base.get(key))
      if (action !== "Same") {
        const note: TreeNote = { key, tree, relative: key.slice(tree.prefix.length + 1) }
        if (action === "ToHome") {
          back.push({ note, expected: hereBlob })
          continue
        }
        toMirror.push({ note, conflict: action === "Conflict", present: hereBlob !== undefined })
      }
      if (hereBlob === undefined) base.delete(key)
      else base.set(key, hereBlob)
    }
  }
  // A note whose way into the mirror goes through a link the remote committed is not written (nor read) there.
  const skipped: Array<SkippedPath> = []
  const realFolders = new Set<string>()
  const madeFolder = makeFolders(ops)
  const writable = toMirror.filter(({ note }) => {
    if (writableWithoutLinks(mirrorDir, note.key.split("/"), realFolders)) return true
    skipped.push({ path: note.key, reason: blockedReason })
    return false
  })
  // A few notes at once: each is its own file in the mirror.
  const theirs = yield* Effect.forEach(writable, ({ note, conflict, present }) =>
    Effect.gen(function*() {
      const target = mirrorFile(ops, mirrorDir, note)
      const mirrorText = conflict ? yield* readRegularText(target) : undefined
      const text = present ? texts.get(note.key) ?? (yield* readRegularText(homeFile(ops, note))) : undefined
      if (text === undefined) yield* ops.fs.remove(target).pipe(Effect.catchIf((error) => error.reason._tag === "NotFound", () => Effect.void))
      else {
        yield* madeFolder(ops.path.dirname(target))
        yield* ops.fs.writeFileString(target, text)
      }
      return mirrorText
    }), { concurrency: FilesAtOnce })
  const changed = writable.map(({ note }) => note.key)
  const conflicts = writable.flatMap(({ note }, index) => {
    const text = theirs[index]
    return text === undefined ? [] : [{ note, theirs: text }]
  })
  return { changed, back, conflicts, here, skipped } satisfies CopiedIn
})

/** What a copy back did to the homes: notes written from the other side, and notes it deleted, moved to their home's wastebasket. */
export interface CopiedBack {
  readonly written: number
  readonly retired: number
  /** Notes not written into their home: something that is no folder or note stands in their way there. */
  readonly skipped: ReadonlyArray<SkippedPath>
}

/**
 * Writes each note back from the mirror into its home under the note's
 * lock, and only when the home's file still has the text it had when it was
 * copied in; the others wait for the next sync. A note the other side
 * deleted is retired, never deleted: it goes to its home's wastebasket, where
 * the notes tools list and restore it.
 */
export const copyBack = Effect.fnUntraced(function*(mirrorDir: string, notes: ReadonlyArray<CopyBack>, base: Base, seen: Seen, atMs: number) {
  const ops: DiskOps = { fs: yield* FileSystem.FileSystem, path: yield* Path.Path }
  const { withNoteLocks } = makeNoteLocks(ops)
  let written = 0
  let retired = 0
  const skipped: Array<SkippedPath> = []
  const realFolders = new Set<string>()
  const madeFolder = makeFolders(ops)
  // Each note under its own lock: a few at once, as a pull of many notes would otherwise wait on each lock in turn.
  yield* Effect.forEach(notes, ({ note, expected }) => Effect.gen(function*() {
    if (!writableWithoutLinks(note.tree.dir, note.relative.split("/"), realFolders)) return void skipped.push({ path: note.key, reason: blockedReason })
    const text = yield* readRegularText(mirrorFile(ops, mirrorDir, note))
    const file = homeFile(ops, note)
    // The lock's own file is made beside the note.
    yield* madeFolder(ops.path.dirname(file))
    const wrote = yield* withNoteLocks(
      [file],
      note.key,
      Effect.gen(function*() {
        if (hashOf(yield* readRegularText(file)) !== expected) return false
        if (text !== undefined) yield* writeAtomically(ops, file, new TextEncoder().encode(text))
        else if (expected !== undefined) {
          const binned = ops.path.join(note.tree.wastebasket, ...note.relative.split("/"))
          yield* ops.fs.makeDirectory(ops.path.dirname(binned), { recursive: true })
          yield* moveToWastebasket(ops, file, binned, atMs)
        }
        return true
      })
    )
    if (!wrote) return
    if (text !== undefined) written += 1
    else if (expected !== undefined) retired += 1
    seen.delete(note.key)
    const hash = hashOf(text)
    if (hash === undefined) base.delete(note.key)
    else base.set(note.key, hash)
  }), { concurrency: FilesAtOnce, discard: true })
  return { written, retired, skipped } satisfies CopiedBack
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
