import { Effect, FileSystem, Path } from "effect"
import type { NotesIdentity } from "../identity.ts"
import { type MergePlan, MirrorsFolder, type SkippedPath, type SyncTree, treeOfKey } from "./syncPlan.ts"
import type { ConflictCopy } from "./syncTypes.ts"
import type { DiskOps } from "../disk.ts"
import { makeNoteLocks } from "../lockFile.ts"
import { copyBack, type CopyBack, copyIn, fingerprintOf, type HomesListing, listHomes, readJson, TrackedMap, type TreeNote, writeConflictCopy, writeJson } from "./copy.ts"
import {
  aheadBehind,
  backUpDiverged,
  blobText,
  commitPaths,
  divergenceResolved,
  fetchRemote,
  ioFailed,
  isAncestor,
  markPulled,
  type MirrorOptions,
  openMirror,
  MirrorBusy,
  refsOf,
  mergeRemote,
  type Mirror,
  overruledHere,
  pushHead,
  startFrom,
  SyncStepFailed,
  tidy,
  treeOf
} from "./mirror.ts"
import { plural } from "../../kernel/plural.ts"
import type { SyncableHome } from "../../settings/sync.ts"

/**
 * One sync of a remote: fetch, copy the homes in, merge, copy back what the
 * merge brought, push. A remote whose branch no longer contains what was
 * pulled before was rewritten: it is neither merged nor pushed over (the
 * local branch is kept, with a backup ref), until the user's command
 * (`resolve`) merges both sides, dropping nothing, and pushes without force.
 */
export type RoundMode = "pull" | "push" | "resolve"

/** A conflict copy written, with its file for telling when the user has retired it. */
export interface WrittenConflict extends ConflictCopy {
  readonly file: string
}

export interface RoundResult {
  /** Notes written in the homes from the remote's side. */
  readonly pulledNotes: number
  /** Notes the remote's side deleted, moved to their home's wastebasket. */
  readonly retiredNotes: number
  /** Commits pushed; undefined when the round pushed nothing (a pull, or nothing to push). */
  readonly pushedCommits: number | undefined
  readonly pushFailure: SyncStepFailed | undefined
  readonly conflicts: ReadonlyArray<WrittenConflict>
  /** The backup ref of a rewritten remote, which this round neither merged nor pushed over. */
  readonly diverged: string | undefined
  readonly ahead: number | undefined
  readonly behind: number | undefined
  /** The homes as this round found them before it copied anything (`fingerprintOf`). */
  readonly fingerprint: string
  /** Entries of the remote (or notes here) that are no note this round could copy: skipped, each with why. */
  readonly skipped: ReadonlyArray<SkippedPath>
  /** Notes this machine had changed whose text another machine kept its own over: the note and where this machine's text is. */
  readonly overruled: ReadonlyArray<{ readonly home: SyncableHome; readonly note: string; readonly path: string; readonly commit: string }>
}

/** A push round that found the homes as the last settled round left them: nothing fetched, nothing pushed. */
export interface RoundSkipped {
  readonly _tag: "Unchanged"
}

const emptyPlan: MergePlan = { fromTheirs: [], deleted: [], conflicts: [] }

/** One round, holding the mirror's lock (another Pi on this machine may sync the same remote). */
export const syncRound = (
  open: MirrorOptions,
  identity: NotesIdentity,
  homes: ReadonlyArray<SyncableHome>,
  trees: ReadonlyArray<SyncTree>,
  mode: RoundMode,
  atMs: number,
  settled: string | undefined
): Effect.Effect<RoundResult | RoundSkipped, SyncStepFailed | MirrorBusy, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const ops: DiskOps = { fs: yield* FileSystem.FileSystem, path: yield* Path.Path }
    const listing = yield* listHomes(trees).pipe(Effect.mapError(ioFailed))
    const fingerprint = fingerprintOf(listing)
    // A push after a window that changed no synced note has nothing to send: the fetch is left to the next pull.
    if (mode === "push" && settled === fingerprint) return { _tag: "Unchanged" } satisfies RoundSkipped
    const dir = ops.path.join(open.root, MirrorsFolder, open.name)
    // The lock's file sits beside the mirror, in the folder of mirrors.
    yield* ops.fs.makeDirectory(ops.path.dirname(dir), { recursive: true }).pipe(Effect.mapError(ioFailed))
    const round = Effect.flatMap(openMirror(open), (mirror) => lockedRound(mirror, identity, homes, trees, mode, atMs, listing, fingerprint))
    return yield* makeNoteLocks(ops).withNoteLocks([dir], "notes sync", round).pipe(
      Effect.catchTag("NoteLocked", () => Effect.fail(new MirrorBusy())),
      Effect.catchTag("PlatformError", (error) => Effect.fail(ioFailed(error)))
    )
  })

const lockedRound = Effect.fnUntraced(function*(
  mirror: Mirror,
  identity: NotesIdentity,
  homes: ReadonlyArray<SyncableHome>,
  trees: ReadonlyArray<SyncTree>,
  mode: RoundMode,
  atMs: number,
  listing: HomesListing,
  fingerprint: string
) {
  const path = yield* Path.Path
  const fs = yield* FileSystem.FileSystem
  const baseFile = path.join(mirror.dir, ".git", "pi-context-base.json")
  const seenFile = path.join(mirror.dir, ".git", "pi-context-seen.json")
  // Present while a round runs: a round cut short leaves it, and the next one puts the work tree back first.
  const runningFile = path.join(mirror.dir, ".git", "pi-context-round")

  if (yield* fs.exists(runningFile).pipe(Effect.orElseSucceed(() => true))) yield* tidy(mirror)
  yield* fs.writeFileString(runningFile, "").pipe(Effect.mapError(ioFailed))
  const found = yield* fetchRemote(mirror)
  const refs = yield* refsOf(mirror)
  const tip = found ? refs.remote : undefined
  let head = refs.head
  let pulled = refs.pulled
  if (head === undefined && tip !== undefined) {
    yield* startFrom(mirror, tip)
    head = tip
    pulled = tip
  }
  const rewritten = pulled !== undefined && (tip === undefined || !(yield* isAncestor(mirror, pulled, tip)))

  // HEAD's tree is listed while the two files are read. Each file is rewritten (and synced to disk) only when the round changed it.
  const skippedInTrees: Array<SkippedPath> = []
  const [baseEntries, seenEntries, headFiles] = yield* Effect.all([
    readJson<Record<string, string>>(baseFile, {}),
    readJson<Record<string, { stat: string; blob: string }>>(seenFile, {}),
    treeOf(mirror, head, skippedInTrees),
    // What the remote's new tip holds that is no note: the merge leaves it out, and the user hears of it.
    tip !== undefined && tip !== head ? treeOf(mirror, tip, skippedInTrees) : Effect.void
  ], { concurrency: "unbounded" })
  const base = new TrackedMap(Object.entries(baseEntries), (a, b) => a === b)
  const seen = new TrackedMap(Object.entries(seenEntries), (a, b) => a.stat === b.stat && a.blob === b.blob)
  const copied = yield* copyIn(mirror.dir, headFiles, trees, base, seen, atMs, listing).pipe(Effect.mapError(ioFailed))
  // HEAD was the remote's tip before this machine's changes were committed on it: the tip needs no merge.
  const onTip = tip !== undefined && head === tip
  const count = copied.changed.length
  if (count > 0) head = yield* commitPaths(mirror, head, copied.changed, `pi-context sync: ${plural(count, "note")} changed here`)

  const diverged = rewritten && mode !== "resolve" ? yield* backUpDiverged(mirror, head, atMs) : undefined
  let plan = emptyPlan
  let overruled: ReadonlyArray<{ readonly path: string; readonly commit: string }> = []
  if (diverged === undefined && tip !== undefined && head !== undefined) {
    if (!onTip) {
      overruled = yield* overruledHere(mirror, head, tip)
      const merged = yield* mergeRemote(mirror, head, tip, rewritten)
      plan = merged.plan
      head = merged.head
    }
    if (pulled !== tip) yield* markPulled(mirror, tip)
    if (rewritten) yield* divergenceResolved(mirror)
  }

  // The merge's changes to the homes this remote carries, each written only over the text copied in.
  const noteOf = (key: string): TreeNote | undefined => {
    const found = treeOfKey(identity, key, path.join)
    return found === undefined || !homes.includes(found.tree.home) ? undefined : { key, tree: found.tree, relative: found.relative }
  }
  const expectedOf = (key: string) => (copied.here.has(key) ? copied.here.get(key) : base.get(key))
  const queued = new Set(copied.back.map((item) => item.note.key))
  const merged: Array<CopyBack> = [...plan.fromTheirs, ...plan.deleted].flatMap((key) => {
    const note = noteOf(key)
    if (note === undefined || queued.has(key)) return []
    queued.add(key)
    return [{ note, expected: expectedOf(key) }]
  })
  const copiedBack = yield* copyBack(mirror.dir, [...copied.back, ...merged], base, seen, atMs).pipe(Effect.mapError(ioFailed))

  const theirs: Array<{ readonly note: TreeNote; readonly theirs: string }> = [...copied.conflicts]
  for (const conflict of plan.conflicts) {
    const note = noteOf(conflict.path)
    if (note !== undefined) theirs.push({ note, theirs: yield* blobText(mirror, conflict.theirs) })
  }
  const conflicts: Array<WrittenConflict> = []
  for (const { note, theirs: text } of theirs) {
    const copy = yield* writeConflictCopy(note, text, atMs).pipe(Effect.mapError(ioFailed))
    conflicts.push({ home: note.tree.home, note: note.relative, copy: copy.relative, atMs, file: copy.file })
  }

  let pushedCommits: number | undefined
  let pushFailure: SyncStepFailed | undefined
  let { ahead, behind } = diverged !== undefined
    ? { ahead: undefined, behind: undefined }
    : onTip
    ? { ahead: count > 0 ? 1 : 0, behind: 0 }
    : yield* aheadBehind(mirror, head, tip)
  if (mode !== "pull" && diverged === undefined && head !== undefined && head !== tip) {
    const pushed = yield* Effect.result(pushHead(mirror, head))
    if (pushed._tag === "Success") {
      pushedCommits = ahead
      ahead = 0
      behind = 0
    } else pushFailure = pushed.failure
  }
  if (base.changed) yield* writeJson(baseFile, Object.fromEntries(base)).pipe(Effect.mapError(ioFailed))
  if (seen.changed) yield* writeJson(seenFile, Object.fromEntries(seen)).pipe(Effect.mapError(ioFailed))
  yield* fs.remove(runningFile).pipe(Effect.mapError(ioFailed))
  // Only what lies in the homes this remote carries: the remote's other files are none of this machine's business.
  const inHomes = (entry: SkippedPath) => trees.some((tree) => entry.path.startsWith(`${tree.prefix}/`))
  const skipped = [...new Map([...skippedInTrees.filter(inHomes), ...copied.skipped, ...copiedBack.skipped].map((entry) => [entry.path, entry])).values()]
  return {
    pulledNotes: copiedBack.written,
    retiredNotes: copiedBack.retired,
    pushedCommits,
    pushFailure,
    conflicts,
    diverged,
    ahead,
    behind,
    fingerprint,
    skipped,
    overruled: overruled.flatMap(({ path: key, commit }) => {
      const note = noteOf(key)
      return note === undefined ? [] : [{ home: note.tree.home, note: note.relative, path: key, commit }]
    })
  } satisfies RoundResult
})
