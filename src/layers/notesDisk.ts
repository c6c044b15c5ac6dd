import { hostname } from "node:os"
import { Clock, Effect, FileSystem, Option, Path, PlatformError, Random, Schema } from "effect"
import { NoteLocked } from "../services/NotesStore.ts"

/**
 * Disk primitives of the notes store: atomic replace, a cross-process lock
 * per note, and a home walk that never follows symlinks.
 */

/** A lock older than this is taken over even when its owner still runs. */
export const StaleLockMs = 30_000
/** How long a writer waits for another writer before giving up. */
export const LockWaitMs = 10_000

export const isNotFound = (error: PlatformError.PlatformError): boolean => error.reason._tag === "NotFound"
export const isAlreadyExists = (error: PlatformError.PlatformError): boolean => error.reason._tag === "AlreadyExists"

/** `EACCES (PermissionDenied) in readDirectoryEntries`: enough to act on, no stack. */
export const describePlatformError = (error: PlatformError.PlatformError): string => {
  const reason = error.reason
  const cause = reason.cause as { readonly code?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : undefined
  const tag = reason._tag
  return code === undefined ? `${tag} in ${reason.method}` : `${code} (${tag}) in ${reason.method}`
}

const LockOwner = Schema.Struct({ pid: Schema.Number, host: Schema.String, token: Schema.String, at: Schema.Number })
type LockOwner = typeof LockOwner.Type
const decodeLockOwner = Schema.decodeUnknownOption(Schema.fromJsonString(LockOwner))

const thisHost = hostname()
let sequence = 0

/** Unique within the machine: pid, a per-process sequence and a random tail. */
export const uniqueToken = Effect.map(Random.nextIntBetween(0, 0x7fffffff), (random) =>
  `${process.pid}-${++sequence}-${random.toString(36)}`)

const processIsAlive = (pid: number): Effect.Effect<boolean> =>
  Effect.try({
    try: () => process.kill(pid, 0),
    catch: (error) => (error as { readonly code?: unknown }).code
  }).pipe(
    Effect.as(true),
    // EPERM means the process exists but belongs to someone else.
    Effect.catch((code) => Effect.succeed(code !== "ESRCH"))
  )

const ownerIsGone = (owner: LockOwner, now: number): Effect.Effect<boolean> =>
  now - owner.at > StaleLockMs
    ? Effect.succeed(true)
    : owner.host === thisHost && owner.pid !== process.pid
    ? Effect.map(processIsAlive(owner.pid), (alive) => !alive)
    : Effect.succeed(false)

export interface DiskOps {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
}

/**
 * Takes over a stale lock without ever deleting a fresh one: the lock is
 * moved aside atomically and removed only if it is still the stale owner's.
 */
const breakStaleLock = Effect.fnUntraced(function*(ops: DiskOps, lockPath: string, stale: LockOwner) {
  const aside = `${lockPath}.stale-${yield* uniqueToken}`
  const moved = yield* Effect.result(ops.fs.rename(lockPath, aside))
  if (moved._tag === "Failure") return
  const movedOwner = decodeLockOwner(yield* ops.fs.readFileString(aside).pipe(Effect.orElseSucceed(() => "")))
  if (Option.isSome(movedOwner) && movedOwner.value.token !== stale.token) {
    // We moved a lock taken after our check: give it back unless a third writer got in first.
    yield* Effect.ignore(ops.fs.link(aside, lockPath))
  }
  yield* Effect.ignore(ops.fs.remove(aside))
})

/** One attempt at the lock; a stale lock is broken and the attempt repeated at once. */
const tryAcquire = Effect.fnUntraced(function*(ops: DiskOps, lockPath: string, token: string) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const at = yield* Clock.currentTimeMillis
    const owner: LockOwner = { pid: process.pid, host: thisHost, token, at }
    const created = yield* Effect.result(ops.fs.writeFileString(lockPath, JSON.stringify(owner), { flag: "wx" }))
    if (created._tag === "Success") return true
    if (!isAlreadyExists(created.failure)) return yield* created.failure
    const current = decodeLockOwner(yield* ops.fs.readFileString(lockPath).pipe(Effect.orElseSucceed(() => "")))
    if (Option.isNone(current) || !(yield* ownerIsGone(current.value, at))) return false
    yield* breakStaleLock(ops, lockPath, current.value)
  }
  return false
})

const releaseLock = (ops: DiskOps, lockPath: string, token: string) =>
  ops.fs.readFileString(lockPath).pipe(
    Effect.flatMap((text) => {
      const owner = decodeLockOwner(text)
      return Option.isSome(owner) && owner.value.token === token ? ops.fs.remove(lockPath) : Effect.void
    }),
    Effect.ignore
  )

/** Runs `use` while holding the lock files of `notePaths` (taken in sorted order, so two writers cannot deadlock). */
export const withNoteLocks = <A, E, R>(
  ops: DiskOps,
  notePaths: ReadonlyArray<string>,
  address: string,
  use: Effect.Effect<A, E, R>
): Effect.Effect<A, E | NoteLocked | PlatformError.PlatformError, R> => {
  const lockPaths = [...new Set(notePaths)].sort().map((notePath) => `${notePath}.lock`)
  const acquireOne = (lockPath: string) =>
    Effect.gen(function*() {
      const token = yield* uniqueToken
      const started = yield* Clock.currentTimeMillis
      while (!(yield* tryAcquire(ops, lockPath, token))) {
        const now = yield* Clock.currentTimeMillis
        if (now - started > LockWaitMs) return yield* new NoteLocked({ address, waitedMs: now - started })
        yield* Effect.sleep(yield* Random.nextIntBetween(1, 8))
      }
      return { lockPath, token }
    })
  return Effect.acquireUseRelease(
    Effect.forEach(lockPaths, acquireOne),
    () => use,
    (held) => Effect.forEach(held, ({ lockPath, token }) => releaseLock(ops, lockPath, token), { discard: true })
  )
}

/** Same-directory temp file, fsync, rename: a reader sees the old note or the new one, never a torn one. */
export const writeAtomically = Effect.fnUntraced(function*(ops: DiskOps, target: string, data: Uint8Array) {
  const temp = `${target}.tmp-${yield* uniqueToken}`
  const writeAndSync = Effect.scoped(
    Effect.gen(function*() {
      const file = yield* ops.fs.open(temp, { flag: "wx" })
      yield* file.writeAll(data)
      yield* file.sync
    })
  )
  yield* Effect.andThen(writeAndSync, ops.fs.rename(temp, target)).pipe(
    Effect.tapError(() => Effect.ignore(ops.fs.remove(temp)))
  )
})

export interface NoteFile {
  /** Path inside the home, `/`-separated, ending in `.md`. */
  readonly relative: string
  readonly absolute: string
}

/**
 * Every regular `.md` file under `dir`. Symlinks are not followed, so a
 * listing or search cannot read outside the home. A missing `dir` is empty.
 */
export const walkNotes = (ops: DiskOps, dir: string): Effect.Effect<ReadonlyArray<NoteFile>, PlatformError.PlatformError> => {
  const visit = (absolute: string, relative: string): Effect.Effect<ReadonlyArray<NoteFile>, PlatformError.PlatformError> =>
    Effect.flatMap(ops.fs.readDirectoryEntries(absolute), (entries) => {
      const files: Array<NoteFile> = []
      const subdirs: Array<Effect.Effect<ReadonlyArray<NoteFile>, PlatformError.PlatformError>> = []
      for (const entry of entries) {
        const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`
        const childAbsolute = ops.path.join(absolute, entry.name)
        if (entry.type === "File" && entry.name.endsWith(".md")) files.push({ relative: childRelative, absolute: childAbsolute })
        else if (entry.type === "Directory") subdirs.push(visit(childAbsolute, childRelative))
      }
      return subdirs.length === 0
        ? Effect.succeed(files)
        : Effect.map(Effect.all(subdirs, { concurrency: 8 }), (nested) => files.concat(...nested))
    })
  return visit(dir, "").pipe(
    Effect.catchIf(isNotFound, () => Effect.succeed([]))
  )
}
