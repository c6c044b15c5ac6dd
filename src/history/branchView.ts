import type { RawEntry } from "../kernel/entries.ts"
import type { Window } from "../kernel/facts.ts"
import type { WindowSpan } from "../window/walk.ts"
import { indexAfter } from "./seqOrder.ts"

/** A window of the active branch, with the seqs of its events, ascending (branch order is append order). */
export interface WindowView extends Window {
  readonly seqs: Array<number>
}

/** What the view reads of the history index: the entries in append order, and the seqs each created. */
export interface BranchSource {
  readonly entryAt: ReadonlyArray<RawEntry>
  readonly seqStarts: ReadonlyArray<number>
}

/**
 * Which events the active branch holds, and in which window: the windows of
 * the Window room's spans (window/walk.ts), each with the seqs its
 * entries created. It follows the spans incrementally: a window whose span
 * still starts with what was folded keeps its seqs and folds only its new
 * entries; from the first window that does not (the leaf moved elsewhere),
 * the view is rebuilt from the spans, never from the entries' texts.
 */
export interface BranchView {
  readonly windows: Array<WindowView>
  /** Per window: the span it was last folded from. */
  readonly spans: Array<WindowSpan>
  /** Per window: the append position just after its last entry, where the search for the next one starts. */
  readonly cursors: Array<number>
  /** Every seq on the branch, ascending. */
  readonly seqs: Array<number>
}

export const emptyBranchView = (): BranchView => ({ windows: [], spans: [], cursors: [], seqs: [] })

/** Whether `span` is `folded` grown (or unchanged): the same window, holding what was folded, as it was. */
const continues = (folded: WindowSpan, span: WindowSpan, isLast: boolean): boolean => {
  if (folded === span) return true
  const length = folded.entries.length
  if (folded.id !== span.id || folded.ordinal !== span.ordinal || span.entries.length < length) return false
  // A window before the last one ended at a marker: it can only be the same, never grown.
  if (!isLast && span.entries.length !== length) return false
  return length === 0 || span.entries[length - 1]!.id === folded.entries[length - 1]!.id
}

const windowOfSpan = ({ id, ordinal, isRoot, startedAt }: WindowSpan, seqs: Array<number>): WindowView => ({ id, ordinal, isRoot, startedAt, seqs })

/**
 * Brings `view` to `spans` (the active branch's windows, oldest first).
 * Returns whether windows already folded had to be dropped: the leaf moved
 * somewhere other than along the entries appended since.
 */
export const followSpans = (view: BranchView, index: BranchSource, spans: ReadonlyArray<WindowSpan>): boolean => {
  let kept = 0
  while (kept < view.spans.length && kept < spans.length && continues(view.spans[kept]!, spans[kept]!, kept === view.spans.length - 1)) kept++
  const dropped = kept < view.spans.length
  if (dropped) {
    view.seqs.length = view.windows.slice(0, kept).reduce((total, window) => total + window.seqs.length, 0)
    view.windows.length = kept
    view.spans.length = kept
    view.cursors.length = kept
  }
  const locate = locator(index)
  for (let position = 0; position < spans.length; position++) {
    const span = spans[position]!
    const folded = view.spans[position]
    if (folded === span) continue
    const seqs = folded === undefined ? [] : view.windows[position]!.seqs
    let cursor = folded === undefined ? view.cursors[position - 1] ?? 0 : view.cursors[position]!
    for (let at = folded === undefined ? 0 : folded.entries.length; at < span.entries.length; at++) {
      const entry = span.entries[at]!
      // Pi hands out the same entry objects in the entries and the branch: the common case needs no id read.
      const found = index.entryAt[cursor] === entry ? cursor : locate(entry.id, cursor)
      if (found === undefined) continue
      cursor = found + 1
      for (let seq = index.seqStarts[found]!; seq < index.seqStarts[found + 1]!; seq++) {
        seqs.push(seq)
        view.seqs.push(seq)
      }
    }
    view.windows[position] = windowOfSpan(span, seqs)
    view.spans[position] = span
    view.cursors[position] = cursor
  }
  return dropped
}

/**
 * Finds an entry's append position, searching forward from `from`: a branch
 * lists its entries in append order (Pi appends an entry after its parent),
 * so following a branch scans the entries once. An entry out of that order
 * falls back to a map of every position, built once per call.
 */
const locator = (index: BranchSource) => {
  let byId: Map<string, number> | undefined
  return (id: string, from: number): number | undefined => {
    if (byId === undefined) {
      for (let position = from; position < index.entryAt.length; position++) if (index.entryAt[position]!.id === id) return position
      byId = new Map(index.entryAt.map((entry, position) => [entry.id, position]))
    }
    return byId.get(id)
  }
}

/** Whether the event `seq` is on the active branch. */
export const isOnBranch = (view: BranchView, seq: number): boolean => {
  const at = indexAfter(view.seqs, seq) - 1
  return at >= 0 && view.seqs[at] === seq
}

export const findWindow = (view: BranchView, windowId: string): WindowView | undefined =>
  view.windows.find((window) => window.id === windowId)

/** The window holding the event `seq`; undefined when it is off the branch. */
export const windowOf = (view: BranchView, seq: number): WindowView | undefined => {
  if (!isOnBranch(view, seq)) return undefined
  // Windows hold ascending, disjoint runs of seqs: the newest one starting at or before `seq` holds it.
  for (let position = view.windows.length - 1; position >= 0; position--) {
    const first = view.windows[position]!.seqs[0]
    if (first !== undefined && first <= seq) return view.windows[position]
  }
  return undefined
}
