import type { BranchEntry } from "../kernel/entries.ts"

/**
 * What the user last set with `/pi-context on|off` on a branch read as its
 * windows' classified entries, oldest first: the last state entry, or
 * undefined when there is none (the setting then decides). With `newest`,
 * only the branch's last that many entries are looked at (those appended
 * since it was last asked).
 */
export const enabledOnBranch = (windows: ReadonlyArray<{ readonly tail: ReadonlyArray<BranchEntry> }>, newest = Infinity): boolean | undefined => {
  let left = newest
  for (let w = windows.length - 1; w >= 0 && left > 0; w--) {
    const tail = windows[w]!.tail
    for (let i = tail.length - 1; i >= 0 && left > 0; i--, left--) {
      const entry = tail[i]!
      if (entry._tag === "State") return entry.enabled
    }
  }
  return undefined
}

/** What manages the active window, in words: on, off on a branch with resets (Pi's compaction stays cancelled), or off on a fresh branch. */
export const windowManager = (input: { readonly enabled: boolean; readonly automaticReset: boolean; readonly branchHasReset: boolean }): string => {
  if (input.enabled) {
    return input.automaticReset
      ? "pi-context (the model's wipe_memory, your /wipe-memory, an automatic reset at the hard line)"
      : "pi-context (the model's wipe_memory and your /wipe-memory; automatic resets are off in the settings)"
  }
  return input.branchHasReset
    ? "you: /wipe-memory ends it (pi-context is off: no reminders or automatic resets; Pi's compaction stays cancelled on this branch with resets)"
    : "Pi's own compaction (pi-context is off; /wipe-memory still starts a fresh window from your notes)"
}

/** The `/pi-context on` notice; `pastHardLine`: the window grew past its hard line while off, and ends now. */
export const onNotice = (pastHardLine: boolean): string =>
  pastHardLine
    ? "pi-context is on: this window grew past its hard line while it was off, so it ends now; the next prompt starts fresh from your notes."
    : "pi-context is on: context windows reset from your notes instead of compacting."

/** The `/pi-context off` notice: what manages the window from now on. */
export const offNotice = (branchHasReset: boolean): string =>
  branchHasReset
    ? "pi-context is off: no reminders and no automatic resets. This branch has resets, so Pi's compaction stays cancelled " +
      "(it would summarise erased history back): the window is yours to end with /wipe-memory, or run /pi-context on."
    : "pi-context is off: no reminders and no resets of its own; Pi's own compaction manages this branch again. " +
      "/wipe-memory still starts a fresh window from your notes."

/**
 * While off on a branch with resets, Pi's compaction stays cancelled and nothing ends the window by itself: once it
 * passes the point where Pi would have compacted (its reserve left), the user is told, once per window. Undefined
 * while there is room, or when the usage is unknown.
 */
export const offPastCompactionNotice = (left: number | null, reserve: number, shownUsage: string): string | undefined =>
  left === null || left > reserve
    ? undefined
    : `pi-context is off, and Pi's compaction stays cancelled on this branch: this window (${shownUsage}) is past the point where Pi ` +
      "would have compacted. /wipe-memory starts a fresh window from your notes; /pi-context on resets it by itself."
