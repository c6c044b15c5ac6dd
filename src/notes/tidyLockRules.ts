import type { LockBlocked, LockOwner } from "./lockRules.ts"

/**
 * The lock that keeps a second `/pi-context tidy` off the same notes: a lock
 * file like a note's, held for as long as a pass may run.
 */

/** The lock file in the notes root that keeps a second tidy out. */
export const TidyLockName = ".tidy.lock"
/** A tidy lock is its owner's for its pass's time limit and this much more (a pass ends at its limit). */
export const TidyLockGraceMs = 60_000

/** The refusal for a `.tidy.lock` pi-context did not make, with the command that clears it. */
const describeTidyLockMisfit = (misfit: "folder" | "other", file: string): string => {
  const what = misfit === "folder" ? "a folder" : "not a regular file"
  return `pi-context: tidy cannot run: ${file} is ${what}, not a lock tidy made, so tidy cannot tell whether another pass runs. ` +
    `Remove it (rm -r "${file}") and run /pi-context tidy again.`
}

const ago = (ms: number): string => {
  const minutes = Math.max(0, Math.round(ms / 60_000))
  return minutes < 1 ? "less than a minute ago" : minutes < 120 ? `${minutes} minutes ago` : `${Math.round(minutes / 60)} hours ago`
}

/** The refusal while another pass holds the lock: whose it is, and when it ends at the latest. */
const describeTidyLockHeld = (owner: LockOwner | undefined, ageMs: number, holdMs: number): string =>
  owner === undefined
    ? "pi-context: another tidy is starting on these notes; try again when it has finished."
    : `pi-context: another tidy is running on these notes (pid ${owner.pid} on ${owner.host}, started ${ago(ageMs)}); ` +
      `try again when it has finished. Its lock counts as abandoned ${Math.max(1, Math.ceil((holdMs - ageMs) / 60_000))} minutes from now at the latest.`

/** Why tidy could not take its lock: another pass holds it, something else is at its name, or another pass just took it. */
export const describeTidyLockRefused = (blocked: LockBlocked | undefined, file: string): string =>
  blocked === undefined
    ? "pi-context: another tidy just started on these notes; try again when it has finished."
    : blocked._tag === "Misfit"
    ? describeTidyLockMisfit(blocked.kind, file)
    : describeTidyLockHeld(blocked.owner, blocked.ageMs, blocked.holdMs)

/** The line the report starts with when the pass took over a lock whose owner was gone. */
export const describeTakenOver = (owner: LockOwner | undefined, ageMs: number): string =>
  `Took over a tidy lock its owner left${owner === undefined ? " unreadable" : ` (pid ${owner.pid} on ${owner.host})`}, ${ago(ageMs)}: that pass is gone.`
