import { estimateRequestTokens, type ProjectableMessage } from "../projection.ts"
import type { BranchEntry } from "../entries.ts"

/**
 * The one usage shape: the current window's size for the next request, as the
 * status line, `context_remaining`, `/pi-context status` and the budget read
 * it. `tokens` is null while it is unknown (a reset window before its first reply).
 */
export interface WindowUsage {
  readonly tokens: number | null
  readonly contextWindow: number
}

/** Tokens left in the window, or null when unknown. May be negative past an overflow. */
export const tokensLeft = (usage: WindowUsage | undefined): number | null =>
  usage === undefined || usage.tokens === null || !Number.isFinite(usage.tokens) || !(usage.contextWindow > 0)
    ? null
    : usage.contextWindow - usage.tokens

export const usedPercent = (usage: WindowUsage | undefined): number | null => {
  const left = tokensLeft(usage)
  return left === null ? null : Math.min(100, Math.max(0, Math.round(((usage!.contextWindow - left) / usage!.contextWindow) * 100)))
}

const answered = (tail: ReadonlyArray<BranchEntry>): boolean =>
  tail.some((entry) => entry._tag === "Message" && entry.role === "assistant")

/**
 * Pi's figure, corrected for a reset window: until the window's first reply,
 * Pi still counts the previous window (a `/wipe-memory` boundary has no
 * compaction to stop it), so the usage is unknown.
 */
export const correctedUsage = (
  reported: WindowUsage | undefined,
  window: { readonly isRoot: boolean; readonly tail: ReadonlyArray<BranchEntry> }
): WindowUsage | undefined =>
  reported === undefined || window.isRoot || answered(window.tail) ? reported : { ...reported, tokens: null }

/**
 * The usage of a provider request, measured from the request itself the way
 * Pi's `getContextUsage()` measures the same context. A reset window with no
 * reply yet is unknown, and so is a root window that starts from a native
 * compaction summary.
 */
export const requestUsage = (
  messages: ReadonlyArray<ProjectableMessage>,
  window: { readonly isRoot: boolean },
  contextWindow: number
): WindowUsage => {
  const estimate = estimateRequestTokens(messages)
  const known = estimate._tag === "Measured" || (window.isRoot && !estimate.compacted)
  return { tokens: known ? estimate.tokens : null, contextWindow }
}
