import { hostname } from "node:os"
import { Clock, Data, Effect, FileSystem, Option, PlatformError, Random } from "effect"
import {
  judgeLock,
  type LockBlocked,
  judgeMarker,
  type LockJudge,
  type LockOwner,
  leftoverIsStale,
  holdOf,
  leftoverOf,
  parseLockOwner,
  StaleLockMs
} from "./lockRules.ts"
import { NoteLocked } from "./NotesStore.ts"
import { type DiskOps, isAlreadyExists, isNotFound, uniqueToken } from "./disk.ts"

/**
 * The notes root's one kind of cross-process lock: `<name>.lock`, created
 * whole (written beside it, then hard-linked into place) so a live owner's
 * lock is never seen empty, naming its owner and how long it may hold it.
 * A note's write holds one for milliseconds, a sync round one on its remote's
 * folder, a tidy pass `.tidy.lock` for its time limit. A stale or corrupt lock
 * is taken over under a marker named after that very lock file, so of two
 * takers only one removes it, and neither can remove a lock taken after it
 * looked.
 */

/** How long a writer waits for another writer before giving up. */
export const LockWaitMs = 10_000
/** A folder is swept for leftovers of killed writers at most this often (per process). */
const SweepIntervalMs = 60_000
/** Takeover markers tried for one stale lock before waiting (each older one left by a killed taker). */
const MarkerGenerations = 16

const thisHost = hostname()

/** Tokens of the locks this process holds, shared by every copy of pi-context loaded into it. */
const heldTokens: Set<string> = (() => {
  const key = Symbol.for("pi-context/held-lock-tokens")
  const registry = globalThis as unknown as Record<symbol, Set<string> | undefined>
  return (registry[key] ??= new Set<string>())
})()

/** Whether `pid` runs on this machine; EPERM means it runs as another user. */
const pidIsAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { readonly code?: unknown }).code === "EPERM"
  }
}

const judge: LockJudge = { host: thisHost, pid: process.pid, holds: (token) => heldTokens.has(token), isAlive: pidIsAlive }

/** What a lock file was when looked at: enough to tell whether it is still the same file later. */
interface Seen {
  readonly ino: string
  readonly mtimeMs: number
  readonly text: string
}

const sameFile = (a: Seen, b: Seen): boolean => a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.text === b.text

const mtimeOf = (info: FileSystem.File.Info): number => Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() })

/** A lock is about a hundred bytes; anything larger, or not a regular file, is not read and counts as unreadable. */
const LockReadBytes = 4096

/** A file's identity and content, or none when it is gone. */
const look = (ops: DiskOps, file: string): Effect.Effect<Option.Option<Seen>, PlatformError.PlatformError> =>
  ops.fs.stat(file).pipe(
    Effect.flatMap((info) =>
      Effect.map(
        info.type === "File" && Number(info.size) <= LockReadBytes ? ops.fs.readFileString(file) : Effect.succeed(""),
        (text) => Option.some({ ino: String(Option.getOrUndefined(info.ino) ?? ""), mtimeMs: mtimeOf(info), text })
      )
    ),
    Effect.catchIf(isNotFound, () => Effect.succeedNone)
  )

/** FNV-1a of the lock file's identity: takers of one stale lock agree on its marker name. */
const identityOf = (seen: Seen): string => {
  let hash = 0x811c9dc5
  const key = `${seen.ino}:${seen.mtimeMs}:${seen.text}`
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0
  return hash.toString(36)
}

/** The marker of one generation of takers of the lock file `seen`. */
const markerPath = (lockPath: string, seen: Seen, generation: number): string => `${lockPath}.break-${identityOf(seen)}-${generation}`

/** Errors of `link` on a file system without hard links; the lock is then created in place. */
const linkUnsupported = (error: PlatformError.PlatformError): boolean => {
  const code = (error.reason.cause as { readonly code?: unknown } | undefined)?.code
  return code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS" || code === "EMLINK"
}

const ownerText = (token: string, at: number, holdMs: number = StaleLockMs): string =>
  JSON.stringify({ pid: process.pid, host: thisHost, token, at, holdMs } satisfies LockOwner)

/**
 * Takes over the stale lock `seen` at most once among all takers: the one
 * that creates its marker re-checks that the lock is still that file, and
 * only then removes it. A marker left by a killed taker is stepped over to
 * the next generation.
 */
const takeOver = Effect.fnUntraced(function*(ops: DiskOps, lockPath: string, seen: Seen, token: string, fsNow: number) {
  const at = yield* Clock.currentTimeMillis
  for (let generation = 0; generation < MarkerGenerations; generation++) {
    const marker = markerPath(lockPath, seen, generation)
    const created = yield* Effect.result(ops.fs.writeFileString(marker, ownerText(token, at), { flag: "wx" }))
    if (created._tag === "Success") {
      const current = yield* look(ops, lockPath).pipe(Effect.orElseSucceed(() => Option.none<Seen>()))
      if (Option.isSome(current) && sameFile(current.value, seen)) yield* Effect.ignore(ops.fs.remove(lockPath))
      for (let older = generation; older >= 0; older--) yield* Effect.ignore(ops.fs.remove(markerPath(lockPath, seen, older)))
      return
    }
    if (!isAlreadyExists(created.failure)) return
    const other = yield* look(ops, marker).pipe(Effect.orElseSucceed(() => Option.none<Seen>()))
    // Gone: its taker just finished.
    if (Option.isNone(other)) return
    const verdict = judgeMarker({ owner: parseLockOwner(other.value.text), ageMs: fsNow - other.value.mtimeMs }, judge)
    if (verdict._tag === "Held") return
  }
})

interface HeldLock {
  readonly lockPath: string
  readonly token: string
  /** The file system's clock when the lock was taken. */
  readonly fsNow: number
  /** The stale lock taken over on the way, if one was. */
  readonly tookOver: TookOver | undefined
}

/** A stale lock taken over: whose it was, and how old. */
export interface TookOver {
  readonly owner: LockOwner | undefined
  readonly ageMs: number
}

/**
 * One attempt: the lock taken; a stale one taken over (or gone) so try again
 * at once; or blocked by a live owner or by something that is no lock.
 */
type Attempt =
  | { readonly _tag: "Taken"; readonly fsNow: number }
  | { readonly _tag: "Again"; readonly tookOver: TookOver | undefined }
  | { readonly _tag: "Blocked"; readonly blocked: LockBlocked }

const misfitOf = (type: FileSystem.File.Type): "folder" | "other" | undefined =>
  type === "Directory" ? "folder" : type === "File" || type === "SymbolicLink" ? undefined : "other"

const attempt = Effect.fnUntraced(function*(ops: DiskOps, lockPath: string, candidate: string, token: string, holdMs: number) {
  // Written anew each attempt: its mtime is the file system's now, the clock a lock's age is read on.
  yield* ops.fs.writeFileString(candidate, ownerText(token, yield* Clock.currentTimeMillis, holdMs))
  const fsNow = mtimeOf(yield* ops.fs.stat(candidate))
  const linked = yield* Effect.result(ops.fs.link(candidate, lockPath))
  if (linked._tag === "Success") return { _tag: "Taken", fsNow } satisfies Attempt
  if (!isAlreadyExists(linked.failure)) {
    if (!linkUnsupported(linked.failure)) return yield* linked.failure
    const created = yield* Effect.result(ops.fs.writeFileString(lockPath, ownerText(token, yield* Clock.currentTimeMillis, holdMs), { flag: "wx" }))
    if (created._tag === "Success") return { _tag: "Taken", fsNow } satisfies Attempt
    if (!isAlreadyExists(created.failure)) return yield* created.failure
  }
  const kind = yield* ops.fs.lstat(lockPath).pipe(
    Effect.map((info) => misfitOf(info.type)),
    Effect.catchIf(isNotFound, () => Effect.succeed(undefined))
  )
  // A folder (or a socket, a fifo) at a lock's name is nobody's lock, and no taker could remove it.
  if (kind !== undefined) return { _tag: "Blocked", blocked: { _tag: "Misfit", kind } } satisfies Attempt
  const seen = yield* look(ops, lockPath)
  if (Option.isNone(seen)) return { _tag: "Again", tookOver: undefined } satisfies Attempt
  const owner = parseLockOwner(seen.value.text)
  const observation = { owner, ageMs: fsNow - seen.value.mtimeMs }
  if (judgeLock(observation, judge, holdMs)._tag === "Held") {
    return { _tag: "Blocked", blocked: { _tag: "Held", ...observation, holdMs: holdOf(owner, holdMs) } } satisfies Attempt
  }
  yield* takeOver(ops, lockPath, seen.value, token, fsNow)
  return { _tag: "Again", tookOver: observation } satisfies Attempt
})

/** The lock could not be had within its wait: what blocked it last (none when takers kept racing for it). */
export class LockUnavailable extends Data.TaggedError("LockUnavailable")<{
  readonly lockPath: string
  readonly waitedMs: number
  readonly blocked: LockBlocked | undefined
}> {}

/** How a lock is held and waited for: its owner's hold, and how long to wait for another owner (0: not at all). */
interface LockTerms {
  readonly holdMs: number
  readonly waitMs: number
}

const acquire = (ops: DiskOps, lockPath: string, terms: LockTerms): Effect.Effect<HeldLock, LockUnavailable | PlatformError.PlatformError> =>
  Effect.gen(function*() {
    const token = yield* uniqueToken
    const candidate = `${lockPath}.tmp-${token}`
    // Known as ours before the lock exists, so no other fiber of this process can judge it stale.
    yield* Effect.sync(() => heldTokens.add(token))
    const started = yield* Clock.currentTimeMillis
    let immediate = 0
    let tookOver: TookOver | undefined
    return yield* Effect.gen(function*() {
      while (true) {
        const result = yield* attempt(ops, lockPath, candidate, token, terms.holdMs)
        if (result._tag === "Taken") return { lockPath, token, fsNow: result.fsNow, tookOver }
        tookOver = result._tag === "Again" ? result.tookOver ?? tookOver : tookOver
        if (result._tag === "Again" && ++immediate <= 3) continue
        const waitedMs = (yield* Clock.currentTimeMillis) - started
        const blocked = result._tag === "Blocked" ? result.blocked : undefined
        if (waitedMs >= terms.waitMs) return yield* new LockUnavailable({ lockPath, waitedMs, blocked })
        immediate = 0
        yield* Effect.sleep(yield* Random.nextIntBetween(1, 8))
      }
    }).pipe(
      Effect.ensuring(Effect.ignore(ops.fs.remove(candidate))),
      Effect.onError(() => Effect.sync(() => heldTokens.delete(token)))
    )
  })

const release = (ops: DiskOps, held: HeldLock): Effect.Effect<void> =>
  look(ops, held.lockPath).pipe(
    Effect.flatMap((seen) =>
      Option.isSome(seen) && parseLockOwner(seen.value.text)?.token === held.token ? ops.fs.remove(held.lockPath) : Effect.void
    ),
    Effect.ignore,
    Effect.ensuring(Effect.sync(() => heldTokens.delete(held.token)))
  )

/**
 * Runs `use` holding the lock file `lockPath` for up to `holdMs`, waiting
 * for no other owner; `use` learns of a stale lock taken over on the way,
 * and `refused` words why the lock could not be had.
 */
export const withLock = <A, E, R, E2>(
  ops: DiskOps,
  lockPath: string,
  holdMs: number,
  refused: (error: LockUnavailable | PlatformError.PlatformError) => E2,
  use: (tookOver: TookOver | undefined) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | E2, R> =>
  Effect.acquireUseRelease(
    acquire(ops, lockPath, { holdMs, waitMs: 0 }).pipe(Effect.mapError(refused)),
    (held) => use(held.tookOver),
    (held) => release(ops, held)
  )

/** Note locks over `ops` (waiting for another writer), and the sweep of leftovers that rides on them. */
export const makeNoteLocks = (ops: DiskOps) => {
  const lastSwept = new Map<string, number>()

  /** Removes temporary files and takeover markers that killed writers left in `dir`; best effort. */
  const sweep = Effect.fnUntraced(function*(dir: string, fsNow: number) {
    const names = yield* ops.fs.readDirectory(dir)
    for (const name of names) {
      const leftover = leftoverOf(name)
      if (leftover === undefined) continue
      const file = ops.path.join(dir, name)
      const info = yield* Effect.option(ops.fs.stat(file))
      if (Option.isSome(info) && info.value.type === "File" && leftoverIsStale(leftover, fsNow - mtimeOf(info.value), pidIsAlive)) {
        yield* Effect.ignore(ops.fs.remove(file))
      }
    }
  })

  const sweepOnce = (held: HeldLock): Effect.Effect<void> =>
    Effect.gen(function*() {
      const dir = ops.path.dirname(held.lockPath)
      const now = yield* Clock.currentTimeMillis
      const last = lastSwept.get(dir)
      if (last !== undefined && now - last < SweepIntervalMs) return
      lastSwept.set(dir, now)
      yield* Effect.ignore(sweep(dir, held.fsNow))
    })

  /** Runs `use` while holding the lock files of `notePaths` (taken in sorted order, so two writers cannot deadlock). */
  const withNoteLocks = <A, E, R>(
    notePaths: ReadonlyArray<string>,
    address: string,
    use: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | NoteLocked | PlatformError.PlatformError, R> => {
    const lockPaths = [...new Set(notePaths)].sort().map((notePath) => `${notePath}.lock`)
    // Each lock is released on its own, so a second lock that cannot be had never strands the first.
    return Effect.scoped(Effect.gen(function*() {
      const held = yield* Effect.forEach(lockPaths, (lockPath) =>
        Effect.acquireRelease(
          acquire(ops, lockPath, { holdMs: StaleLockMs, waitMs: LockWaitMs }).pipe(
            Effect.catchTag("LockUnavailable", (error) => Effect.fail(new NoteLocked({ address, waitedMs: error.waitedMs })))
          ),
          (lock) => release(ops, lock)
        ))
      yield* Effect.forEach(held, sweepOnce, { discard: true })
      return yield* use
    }))
  }

  return { withNoteLocks }
}

/** The takeover protocol's steps, for tests that play two takers against each other. */
export const lockProtocol = { look, takeOver, markerPath, ownerText } as const

