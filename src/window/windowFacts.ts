import type { RawEntry } from "../kernel/entries.ts"
import { resetSourceOf, type WindowEnd, type WindowFacts } from "../kernel/facts.ts"
import { branchWindows, epochMs, type WindowSpan } from "./walk.ts"

/**
 * Every window of a branch (root to leaf), oldest first, with its facts: the
 * windows as `branchWindows` reads them, each ended by the next marker, whose
 * recorded source says how it ended.
 */
export const windowFacts = (branch: ReadonlyArray<RawEntry>, sessionId: string): ReadonlyArray<WindowFacts> =>
  factsOfSpans(branchWindows(branch, sessionId))

/** The facts of windows `branchWindows` read. */
export const factsOfSpans = (spans: ReadonlyArray<WindowSpan>): ReadonlyArray<WindowFacts> => spans.map(factsOfSpan)

/** The epoch ms of the newest entry whose timestamp parses, else `fallback`: parsing only from the end. */
const lastTimestamp = (entries: ReadonlyArray<RawEntry>, fallback: number | undefined): number | undefined => {
  for (let position = entries.length - 1; position >= 0; position--) {
    const ms = epochMs(entries[position]!.timestamp)
    if (ms !== undefined) return ms
  }
  return fallback
}

/** The facts of one window `branchWindows` read: its tally, counted as its entries were classified. */
export const factsOfSpan = (window: WindowSpan): WindowFacts => {
  const { tally, endedBy } = window
  const endedAt = endedBy === undefined ? undefined : epochMs(endedBy.timestamp)
  const end: WindowEnd = endedBy === undefined ? { _tag: "Open" } : { _tag: "Reset", source: resetSourceOf(endedBy.source), at: endedAt }
  return {
    id: window.id,
    ordinal: window.ordinal,
    isRoot: window.isRoot,
    startedAt: window.startedAt,
    end,
    lastActivityAt: endedAt ?? lastTimestamp(window.entries, window.startedAt),
    turns: tally.turns,
    peakTokens: tally.peakTokens,
    notesWritten: tally.notesWritten,
    bootTokens: tally.bootTokens
  }
}
