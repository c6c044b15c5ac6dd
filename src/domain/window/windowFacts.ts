import { isRecord } from "../record.ts"
import { noteWriteResult } from "../checkpoint.ts"
import { classifyEntry, type RawEntry } from "../entries.ts"
import { estimateMessageTokens, replyTokens } from "../projection.ts"
import type { ResetSource } from "../resetControl.ts"
import { rootWindowId } from "../windowId.ts"
import type { WindowEnd, WindowFacts } from "./facts.ts"

const resetSources: ReadonlySet<string> = new Set<ResetSource>(["tool", "command", "hard-line", "close-out", "overflow"])

/** A marker's recorded source; markers written before the source was recorded, or by a newer version, say `unknown`. */
export const resetSourceOf = (recorded: string | undefined): ResetSource | "unknown" =>
  recorded !== undefined && resetSources.has(recorded) ? recorded as ResetSource : "unknown"

/** Epoch ms of an entry's timestamp; undefined when it does not parse. */
export const epochMs = (timestamp: string): number | undefined => {
  const ms = Date.parse(timestamp)
  return Number.isNaN(ms) ? undefined : ms
}

interface Building {
  id: string
  ordinal: number
  isRoot: boolean
  startedAt: number | undefined
  end: WindowEnd
  lastActivityAt: number | undefined
  turns: number
  peakTokens: number | null
  notesWritten: Array<string>
  bootTokens: number | null
}

const open = (id: string, ordinal: number, startedAt: number | undefined): Building => ({
  id,
  ordinal,
  isRoot: ordinal === 1,
  startedAt,
  end: { _tag: "Open" },
  lastActivityAt: startedAt,
  turns: 0,
  peakTokens: null,
  notesWritten: [],
  bootTokens: null
})

/**
 * Every window of a branch (root to leaf), oldest first, with its facts. One
 * pass over the branch; a window ends at the next marker, whose recorded
 * source says how it ended.
 */
export const windowFacts = (branch: ReadonlyArray<RawEntry>, sessionId: string): ReadonlyArray<WindowFacts> => {
  const first = branch[0]
  const windows: Array<Building> = [open(rootWindowId(sessionId), 1, first === undefined ? undefined : epochMs(first.timestamp))]
  for (const entry of branch) {
    const at = epochMs(entry.timestamp)
    const current = windows[windows.length - 1]!
    const classified = classifyEntry(entry)
    if (classified._tag === "Marker") {
      current.end = { _tag: "Reset", source: resetSourceOf(classified.source), at }
      current.lastActivityAt = at ?? current.lastActivityAt
      windows.push(open(classified.windowId, windows.length + 1, at))
      continue
    }
    current.lastActivityAt = at ?? current.lastActivityAt
    if (classified._tag === "Boot" && classified.windowId === current.id && current.bootTokens === null) {
      current.bootTokens = estimateMessageTokens({ role: "custom", content: entry.content } as { role: string })
    }
    if (classified._tag !== "Message") continue
    if (classified.role === "assistant") {
      current.turns++
      const tokens = isRecord(entry.message) ? replyTokens(entry.message as { role: string }) : undefined
      if (tokens !== undefined && (current.peakTokens === null || tokens > current.peakTokens)) current.peakTokens = tokens
    }
    const address = noteWriteResult(entry)?.address
    if (address !== undefined && !current.notesWritten.includes(address)) current.notesWritten.push(address)
  }
  return windows
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
