import { estimateRequestTokens, type ProjectableMessage } from "./projection.ts"
import type { BranchEntry } from "../kernel/entries.ts"
import type { WindowUsage } from "../kernel/facts.ts"

/** Tokens left in the window, or null when unknown. May be negative past an overflow. */
export const tokensLeft = (usage: WindowUsage | undefined): number | null =>
  usage === undefined || usage.tokens === null || !Number.isFinite(usage.tokens) || !(usage.contextWindow > 0)
    ? null
    : usage.contextWindow - usage.tokens

export const usedPercent = (usage: WindowUsage | undefined): number | null => {
  const left = tokensLeft(usage)
  // Not clamped at 100: past its size a window reads as it is (117%), not as merely full.
  return left === null ? null : Math.max(0, Math.round(((usage!.contextWindow - left) / usage!.contextWindow) * 100))
}

/** The used share as shown everywhere: `62%`, `~9%` while it is an estimate, `?%` when unknown. */
export const percentShown = (usage: WindowUsage | undefined): string => {
  const percent = usedPercent(usage)
  return percent === null ? "?%" : `${usage!.estimated === true ? "~" : ""}${percent}%`
}

/** Said beside an estimated figure. */
export const estimateNote = "an estimate until a reply in this window reports its usage"

const answered = (tail: ReadonlyArray<BranchEntry>): boolean =>
  tail.some((entry) => entry._tag === "Message" && entry.role === "assistant")

/**
 * Whether Pi's own figure is the window's: in the root window, or once a reset
 * window has a reply. Before that Pi still counts the previous window (a
 * `/wipe-memory` boundary has no compaction to stop it) or knows nothing.
 */
export const piFigureHolds = (window: { readonly isRoot: boolean; readonly tail: ReadonlyArray<BranchEntry> }): boolean =>
  window.isRoot || answered(window.tail)

/** Pi's figure for a window where it holds: an estimate until the window's first reply. */
export const reportedUsage = (
  reported: WindowUsage | undefined,
  window: { readonly tail: ReadonlyArray<BranchEntry> }
): WindowUsage | undefined => (reported === undefined || answered(window.tail) ? reported : { ...reported, estimated: true })

/**
 * The usage a request's reminders are decided on. A reminder follows the reply
 * that crossed its line, so a reset window's estimate before its first reply
 * (the boot and the continuation, which no reply crossed) decides nothing.
 */
export const reminderUsage = (usage: WindowUsage | undefined, window: { readonly isRoot: boolean }): WindowUsage | undefined =>
  usage?.estimated === true && !window.isRoot ? { ...usage, tokens: null } : usage

/**
 * The usage of a provider request, measured from the request itself the way
 * Pi's `getContextUsage()` measures the same context: the last reply's
 * reported usage plus what follows it, or, before any reply, an estimate of
 * every message. A root window that starts from a native compaction summary
 * is unknown until its first reply.
 */
export const requestUsage = (
  messages: ReadonlyArray<ProjectableMessage>,
  window: { readonly isRoot: boolean },
  contextWindow: number
): WindowUsage => {
  const estimate = estimateRequestTokens(messages)
  if (estimate._tag === "Measured") return { tokens: estimate.tokens, contextWindow }
  return { tokens: window.isRoot && estimate.compacted ? null : estimate.tokens, contextWindow, estimated: true }
}
