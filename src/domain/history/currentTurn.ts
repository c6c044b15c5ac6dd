import type { SessionIndex } from "./sessionIndex.ts"

/**
 * Events a history search leaves out: the current turn's own calls (the
 * events of the newest assistant entry, the in-flight search among them) and
 * the newest user prompt of the current window. Both are in the model's
 * context already; listing them only echoes the query back. Walks the current
 * window from its end, so it costs that window at most.
 */
export const currentTurnSeqs = (index: SessionIndex): ReadonlySet<number> => {
  const windows = index.branch.windows
  const seqs = windows[windows.length - 1]?.seqs ?? []
  const excluded = new Set<number>()
  const newest = seqs.length === 0 ? undefined : index.events[seqs[seqs.length - 1]! - 1]
  const batch = newest !== undefined && (newest.role === "tool" || newest.role === "assistant") ? newest.entryId : undefined
  for (let i = seqs.length - 1; i >= 0; i--) {
    const event = index.events[seqs[i]! - 1]!
    if (batch !== undefined && event.entryId === batch) {
      excluded.add(event.seq)
      continue
    }
    if (event.role === "user") {
      excluded.add(event.seq)
      break
    }
  }
  return excluded
}
