import { Option, Schema } from "effect"

/**
 * When a note's `.lock` may be taken over. Ages are measured on the file
 * system's own clock (the lock's mtime against a file the taker just wrote),
 * so neither a forged timestamp in the lock nor a skewed host clock can
 * keep a lock alive.
 */

/** A lock older than this is taken over even when its owner still runs. */
export const StaleLockMs = 30_000
/** A lock whose content cannot be read is a writer between creating and filling it for at most this long. */
export const UnreadableLockGraceMs = 2_000
/** An mtime further ahead than this of the file system's own now was not written by a writer that now waits. */
export const FutureToleranceMs = 10_000
/** A takeover marker is held for a few system calls; one older than this was left by a killed taker. */
export const StaleMarkerMs = 5_000
/** A temporary file older than this whose writer is gone is removed; a writer never keeps one for long. */
export const StaleTempMs = 60_000
/** A temporary file this old is removed whoever wrote it (its pid may be another machine's). */
export const AbandonedTempMs = 3_600_000

/** The longest hold a lock's owner may claim for itself; a longer one (a tidy without end, a forged lock) counts as this. */
export const MaxLockHoldMs = 86_400_000

const Pid = Schema.Int.check(Schema.isGreaterThan(0))
/** What every lock file of the notes root holds: its owner, and how long that owner may hold it (absent: as long as the taker's own). */
export const LockOwner = Schema.Struct({
  pid: Pid,
  host: Schema.String,
  token: Schema.String,
  at: Schema.Number,
  holdMs: Schema.optionalKey(Schema.Number)
})
export type LockOwner = typeof LockOwner.Type

const decodeOwner = Schema.decodeUnknownOption(Schema.fromJsonString(LockOwner))

/** The owner a lock file names, or undefined when it is empty, truncated or not a lock. */
export const parseLockOwner = (text: string): LockOwner | undefined => Option.getOrUndefined(decodeOwner(text))

export interface LockObservation {
  readonly owner: LockOwner | undefined
  /** Now minus the lock's mtime, both on the file system's clock; negative for an mtime in the future. */
  readonly ageMs: number
}

export interface LockJudge {
  readonly host: string
  readonly pid: number
  /** Whether this process (any copy of pi-context in it) holds the lock with `token`. */
  readonly holds: (token: string) => boolean
  /** Whether `pid` runs on this host. */
  readonly isAlive: (pid: number) => boolean
}

export type LockVerdict =
  | { readonly _tag: "Held" }
  | { readonly _tag: "Stale"; readonly reason: "unreadable" | "future" | "old" | "dead-owner" | "not-ours" }

/** Why a lock could not be had: a live owner (with how long it may still hold it), or something at its name that is no lock. */
export type LockBlocked =
  | { readonly _tag: "Held"; readonly owner: LockOwner | undefined; readonly ageMs: number; readonly holdMs: number }
  | { readonly _tag: "Misfit"; readonly kind: "folder" | "other" }

const held: LockVerdict = { _tag: "Held" }
const stale = (reason: Extract<LockVerdict, { _tag: "Stale" }>["reason"]): LockVerdict => ({ _tag: "Stale", reason })

/** How long the owner of a lock may hold it: what it wrote (up to a day), else what the taker would. */
export const holdOf = (owner: LockOwner | undefined, ownHoldMs: number): number => Math.min(owner?.holdMs ?? ownHoldMs, MaxLockHoldMs)

/**
 * Held or stale. A lock from another host is judged by age alone (older than
 * the hold its owner wrote, else `ownHoldMs`); one from this host also by
 * whether its pid runs (this very process: whether the token is one it holds,
 * since a pid is reused across restarts).
 */
export const judgeLock = (observation: LockObservation, judge: LockJudge, ownHoldMs: number = StaleLockMs): LockVerdict => {
  const { owner, ageMs } = observation
  if (ageMs < -FutureToleranceMs) return stale("future")
  if (owner === undefined) return ageMs > UnreadableLockGraceMs ? stale("unreadable") : held
  if (ageMs > holdOf(owner, ownHoldMs)) return stale("old")
  if (owner.host !== judge.host) return held
  if (owner.pid === judge.pid) return judge.holds(owner.token) ? held : stale("not-ours")
  return judge.isAlive(owner.pid) ? held : stale("dead-owner")
}

/**
 * Same rule for a takeover marker, with its much shorter hold: one from
 * another host is stale after a few seconds, and any is stale after
 * `StaleLockMs` (its taker's pid may since have been reused).
 */
export const judgeMarker = (observation: LockObservation, judge: LockJudge): LockVerdict => {
  const { owner, ageMs } = observation
  if (ageMs < -FutureToleranceMs) return stale("future")
  if (owner === undefined) return ageMs > UnreadableLockGraceMs ? stale("unreadable") : held
  if (ageMs > StaleLockMs) return stale("old")
  if (owner.host === judge.host) {
    if (owner.pid === judge.pid) return judge.holds(owner.token) ? held : stale("not-ours")
    return judge.isAlive(owner.pid) ? held : stale("dead-owner")
  }
  return ageMs > StaleMarkerMs ? stale("old") : held
}

/** A suffix the store writes beside a note; `pid` when its name carries the writer's. */
export interface Leftover {
  readonly kind: "temp" | "marker"
  readonly pid: number | undefined
}

const tempName = /\.tmp-(\d+)-[0-9a-z]+-[0-9a-z]+$/
const markerName = /\.lock\.(?:break-[0-9a-z]+-\d+|stale-(\d+)-[0-9a-z]+-[0-9a-z]+)$/

/** Whether `name` is a temporary file or takeover marker of the store (never a note or a live lock). */
export const leftoverOf = (name: string): Leftover | undefined => {
  const temp = tempName.exec(name)
  if (temp !== null) return { kind: "temp", pid: Number(temp[1]) }
  const marker = markerName.exec(name)
  if (marker !== null) return { kind: "marker", pid: marker[1] === undefined ? undefined : Number(marker[1]) }
  return undefined
}

/**
 * Whether a leftover `ageMs` old may be removed: old enough that its writer
 * is done, and its pid (on this host, as far as a name can tell) not running;
 * after an hour whatever the pid, since the name does not say its host.
 */
export const leftoverIsStale = (leftover: Leftover, ageMs: number, isAlive: (pid: number) => boolean): boolean =>
  ageMs > AbandonedTempMs || (ageMs > StaleTempMs && (leftover.pid === undefined || !isAlive(leftover.pid)))
