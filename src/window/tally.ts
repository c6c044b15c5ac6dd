import { noteWriteResult } from "./checkpoint.ts"
import type { BranchEntry, RawEntry } from "../kernel/entries.ts"
import { estimateMessageTokens, replyTokens } from "./projection.ts"

/** What a window's entries add up to for its facts: counted as the entries are read, once. */
export interface WindowTally {
  /** Assistant replies. */
  readonly turns: number
  /** Highest usage a successful reply reported, or null. */
  readonly peakTokens: number | null
  /** Addresses a successful notes_write or notes_update wrote, in order, without repeats. */
  readonly notesWritten: ReadonlyArray<string>
  /** Estimated tokens of the window's own boot, or null when it has none. */
  readonly bootTokens: number | null
}

/** A tally being counted: owned by whoever is reading the window's entries, then handed out read-only. */
export interface TallyCount {
  turns: number
  peakTokens: number | null
  notesWritten: Array<string>
  bootTokens: number | null
}

export const emptyTally = (): TallyCount => ({ turns: 0, peakTokens: null, notesWritten: [], bootTokens: null })

/** A count that goes on from `tally` without touching it: a window that grows keeps its old spans' tallies as they were. */
export const continuedTally = (tally: WindowTally): TallyCount => ({ ...tally, notesWritten: [...tally.notesWritten] })

/**
 * Counts one entry of `window` (`classified` is the entry
 * classified): read while the entry is being classified, so the facts of
 * a long branch cost no second pass over its entries.
 */
export const countEntry = (tally: TallyCount, entry: RawEntry, classified: BranchEntry, window: { readonly id: string; readonly isRoot: boolean }): void => {
  if (classified._tag === "Boot") {
    // The boot its requests start from: a reset window's first of its own, the root window's newest (see windowBootText).
    if (classified.windowId === window.id && (tally.bootTokens === null || window.isRoot)) {
      tally.bootTokens = estimateMessageTokens({ role: "custom", content: entry.content } as { role: string })
    }
    return
  }
  if (classified._tag !== "Message") return
  if (classified.role === "assistant") {
    tally.turns++
    const message = entry.message
    const tokens = typeof message === "object" && message !== null ? replyTokens(message as { role: string }) : undefined
    if (tokens !== undefined && (tally.peakTokens === null || tokens > tally.peakTokens)) tally.peakTokens = tokens
    return
  }
  // Only a tool result can be a note written.
  if (classified.role !== "toolResult") return
  const address = noteWriteResult(entry)?.address
  if (address !== undefined && !tally.notesWritten.includes(address)) tally.notesWritten.push(address)
}
