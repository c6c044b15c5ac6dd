import { type BranchEntry, classifyEntry, isMarkerEntry, type RawEntry } from "../kernel/entries.ts"
import { rootWindowId } from "../kernel/windowId.ts"
import type { Window } from "../kernel/facts.ts"
import { continuedTally, countEntry, emptyTally, type WindowTally } from "./tally.ts"

/**
 * The one reader of a branch's window structure: where windows open, their
 * ids and w-numbers, and which raw entries each holds. Everything else that
 * needs a window (the service's `current` and `windows`, the history index,
 * the reset code, the digest, the commands) reads it from here.
 *
 * One rule for a reset marker that does not decode (no valid `windowId`): it
 * opens no window and is a foreign entry of the window it sits in. It names
 * no window, so opening one would mean inventing an id; and a window opened
 * by it would have no boot of its own, so the next request would be stopped
 * or (read as the root) send the whole session. Every reader applies the same
 * rule, so `current`, the windows view and `history_windows` agree.
 */

/** What a decoded marker tells: the window it opens and how the previous one ended. */
export type WindowOpening = Extract<BranchEntry, { readonly _tag: "Marker" }>

/** Whether `entry` starts a window: a reset marker that decodes (see the rule above). */
export const opensWindow = (entry: RawEntry): boolean => isMarkerEntry(entry) && classifyEntry(entry)._tag === "Marker"

/** Epoch ms of an entry's timestamp; undefined when it does not parse. */
export const epochMs = (timestamp: string): number | undefined => {
  const ms = Date.parse(timestamp)
  return Number.isNaN(ms) ? undefined : ms
}

/** A window of the branch with its entries, raw and classified (`tail[i]` is `entries[i]` classified): its marker first (none for the root), up to the next marker. */
export interface WindowEntries extends Window {
  readonly entries: ReadonlyArray<RawEntry>
  readonly tail: ReadonlyArray<BranchEntry>
}

/** The window the next request belongs to: the branch's last window, read back from the leaf. */
export type CurrentWindow = WindowSpan

/** Any window of the branch, with the marker that ended it. */
export interface WindowSpan extends WindowEntries {
  /** The marker that ended the window; undefined while it is open (the last window of the branch). */
  readonly endedBy: WindowOpening | undefined
  /** What its entries add up to for its facts, counted as they were classified. */
  readonly tally: WindowTally
}

/** Every window of a branch (root to leaf), oldest first, each with its entries. One pass over the branch. */
export const branchWindows = (branch: ReadonlyArray<RawEntry>, sessionId: string): ReadonlyArray<WindowSpan> =>
  extendedSpans([{ id: rootWindowId(sessionId), ordinal: 1, isRoot: true, startedAt: undefined, entries: [], tail: [], endedBy: undefined, tally: emptyTally() }], branch)

const windowPart = ({ id, ordinal, isRoot, startedAt }: Window): Window => ({ id, ordinal, isRoot, startedAt })

/**
 * A branch's windows (as `branchWindows` read them) grown by the entries
 * appended after its leaf, oldest first: the windows before the last are
 * the same objects, the last one grows, and each decoded marker among
 * `appended` ends it and opens the next. Costs the last window and `appended`;
 * each entry is counted into its window's tally as it is classified.
 */
export const extendedSpans = (spans: ReadonlyArray<WindowSpan>, appended: ReadonlyArray<RawEntry>): ReadonlyArray<WindowSpan> => {
  const last = spans[spans.length - 1]
  if (appended.length === 0 || last === undefined) return spans
  const windows = spans.slice(0, -1)
  // The root window starts at the branch's first entry.
  let window = last.isRoot && last.entries.length === 0 ? { ...windowPart(last), startedAt: epochMs(appended[0]!.timestamp) } : windowPart(last)
  let entries = [...last.entries]
  let tail = [...last.tail]
  let tally = continuedTally(last.tally)
  for (const entry of appended) {
    const classified = classifyEntry(entry)
    if (classified._tag === "Marker") {
      windows.push({ ...window, entries, tail, endedBy: classified, tally })
      window = { id: classified.windowId, ordinal: windows.length + 1, isRoot: false, startedAt: epochMs(classified.timestamp) }
      entries = [entry]
      tail = [classified]
      tally = emptyTally()
    } else {
      entries.push(entry)
      tail.push(classified)
      countEntry(tally, entry, classified, window)
    }
  }
  windows.push({ ...window, entries, tail, endedBy: undefined, tally })
  return windows
}

/**
 * The branch ending at `leafId`, root first, read from the session's entries
 * in append order: Pi appends an entry after its parent, so one backward
 * pass finds it, with no lookup by id. Undefined when the entries are out of
 * that order (the caller then asks Pi for the branch).
 */
export const branchOfEntries = (entries: ReadonlyArray<RawEntry>, leafId: string | null): ReadonlyArray<RawEntry> | undefined => {
  const branch: Array<RawEntry> = []
  let cursor = leafId
  for (let position = entries.length - 1; position >= 0 && cursor !== null; position--) {
    const entry = entries[position]!
    if (entry.id !== cursor) continue
    branch.push(entry)
    cursor = entry.parentId
  }
  return cursor === null ? branch.reverse() : undefined
}
