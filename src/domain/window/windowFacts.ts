import { isRecord } from "../record.ts"
import { noteWriteResult } from "../checkpoint.ts"
import type { RawEntry } from "../entries.ts"
import { estimateMessageTokens, replyTokens } from "../projection.ts"
import type { ResetSource } from "../resetControl.ts"
import type { WindowEnd, WindowFacts } from "./facts.ts"
import { branchWindows, epochMs, type WindowSpan } from "./walk.ts"

const resetSources: ReadonlySet<string> = new Set<ResetSource>(["tool", "command", "hard-line", "close-out", "overflow"])

/** A marker's recorded source; markers written before the source was recorded, or by a newer version, say `unknown`. */
export const resetSourceOf = (recorded: string | undefined): ResetSource | "unknown" =>
  recorded !== undefined && resetSources.has(recorded) ? recorded as ResetSource : "unknown"

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

/** The facts of one window `branchWindows` read. */
export const factsOfSpan = (span: WindowSpan): WindowFacts => {
  const lastActivityAt = lastTimestamp(span.entries, span.startedAt)
  let turns = 0
  let peakTokens: number | null = null
  let bootTokens: number | null = null
  const notesWritten: Array<string> = []
  for (let i = 0; i < span.entries.length; i++) {
    const entry = span.entries[i]!
    const classified = span.tail[i]!
    if (classified._tag === "Boot" && classified.windowId === span.id && bootTokens === null) {
      bootTokens = estimateMessageTokens({ role: "custom", content: entry.content } as { role: string })
    }
    if (classified._tag !== "Message") continue
    if (classified.role === "assistant") {
      turns++
      const tokens = isRecord(entry.message) ? replyTokens(entry.message as { role: string }) : undefined
      if (tokens !== undefined && (peakTokens === null || tokens > peakTokens)) peakTokens = tokens
      continue
    }
    // Only a tool result can be a note written.
    if (classified.role !== "toolResult") continue
    const address = noteWriteResult(entry)?.address
    if (address !== undefined && !notesWritten.includes(address)) notesWritten.push(address)
  }
  const endedAt = span.endedBy === undefined ? undefined : epochMs(span.endedBy.timestamp)
  const end: WindowEnd = span.endedBy === undefined ? { _tag: "Open" } : { _tag: "Reset", source: resetSourceOf(span.endedBy.source), at: endedAt }
  return {
    id: span.id,
    ordinal: span.ordinal,
    isRoot: span.isRoot,
    startedAt: span.startedAt,
    end,
    lastActivityAt: endedAt ?? lastActivityAt,
    turns,
    peakTokens,
    notesWritten,
    bootTokens
  }
}

/** The highest usage a successful reply among `entries` reported, or null. */
export const peakReplyTokens = (entries: ReadonlyArray<RawEntry>): number | null => {
  let peak: number | null = null
  for (const entry of entries) {
    if (entry.type !== "message" || typeof entry.message !== "object" || entry.message === null) continue
    const tokens = replyTokens(entry.message as { readonly role: string })
    if (tokens !== undefined && (peak === null || tokens > peak)) peak = tokens
  }
  return peak
}
