import { entryIdAt, roleAt, type SessionIndex } from "./sessionIndex.ts"

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
  const newest = seqs[seqs.length - 1]
  const newestRole = newest === undefined ? undefined : roleAt(index, newest)
  const batch = newest !== undefined && (newestRole === "tool" || newestRole === "assistant") ? entryIdAt(index, newest) : undefined
  for (let i = seqs.length - 1; i >= 0; i--) {
    const seq = seqs[i]!
    if (batch !== undefined && entryIdAt(index, seq) === batch) {
      excluded.add(seq)
      continue
    }
    if (roleAt(index, seq) === "user") {
      excluded.add(seq)
      break
    }
  }
  return excluded
}
