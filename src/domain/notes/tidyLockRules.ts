import { Option, Schema } from "effect"

/**
 * The lock that keeps a second `/pi-context tidy` off the same notes: judged
 * like a note's lock (`lock.ts`), but held for as long as a pass may run.
 */

/** The lock file in the notes root that keeps a second tidy out. */
export const TidyLockName = ".tidy.lock"
/** A tidy lock is its owner's for its pass's time limit and this much more (a pass ends at its limit). */
export const TidyLockGraceMs = 60_000

const LockLimit = Schema.Struct({ limitMs: Schema.Number })
const decodeLockLimit = Schema.decodeUnknownOption(Schema.fromJsonString(LockLimit))

/** How long the owner of a tidy lock may hold it: the limit it wrote, else this pass's own. */
export const tidyLockHoldMs = (text: string, ownLimitMs: number): number =>
  Option.match(decodeLockLimit(text), { onNone: () => ownLimitMs, onSome: (lock) => lock.limitMs }) + TidyLockGraceMs

/** What stands at the tidy lock's name when it is no lock pi-context made. */
export type TidyLockMisfit = "folder" | "link" | "other"

/** The refusal for a `.tidy.lock` pi-context did not make, with the command that clears it. */
export const describeTidyLockMisfit = (misfit: TidyLockMisfit, file: string): string => {
  const what = misfit === "folder" ? "a folder" : misfit === "link" ? "a symbolic link" : "not a regular file"
  return `pi-context: tidy cannot run: ${file} is ${what}, not a lock tidy made, so tidy cannot tell whether another pass runs. ` +
    `Remove it (rm -r "${file}") and run /pi-context tidy again.`
}

const ago = (ms: number): string => {
  const minutes = Math.max(0, Math.round(ms / 60_000))
  return minutes < 1 ? "less than a minute ago" : minutes < 120 ? `${minutes} minutes ago` : `${Math.round(minutes / 60)} hours ago`
}

/** The refusal while another pass holds the lock: whose it is, and when it ends at the latest. */
export const describeTidyLockHeld = (owner: { readonly pid: number; readonly host: string } | undefined, ageMs: number, holdMs: number): string =>
  owner === undefined
    ? "pi-context: another tidy is starting on these notes; try again when it has finished."
    : `pi-context: another tidy is running on these notes (pid ${owner.pid} on ${owner.host}, started ${ago(ageMs)}); ` +
      `try again when it has finished. Its lock counts as abandoned ${Math.max(1, Math.ceil((holdMs - ageMs) / 60_000))} minutes from now at the latest.`

/** The line the report starts with when the pass took over a lock whose owner was gone. */
export const describeTakenOver = (owner: { readonly pid: number; readonly host: string } | undefined, ageMs: number): string =>
  `Took over a tidy lock its owner left${owner === undefined ? " unreadable" : ` (pid ${owner.pid} on ${owner.host})`}, ${ago(ageMs)}: that pass is gone.`
