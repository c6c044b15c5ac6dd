import type { RawEntry } from "../entries.ts"
import type { Window } from "../window/facts.ts"
import { openedWindow, rootWindow, windowOpening } from "../window/walk.ts"

/** A window of the active branch, with the seqs of its events, ascending (branch order is append order). */
export interface WindowView extends Window {
  readonly seqs: Array<number>
}

/** What the view reads of the history index: which seqs each entry created. */
export interface BranchSource {
  readonly sessionId: string
  readonly seqsByEntry: ReadonlyMap<string, ReadonlyArray<number>>
}

/**
 * Which events the active branch holds, and in which window: the windows as
 * the Window room's walk reads them (domain/window/walk.ts), one entry at a
 * time. Extended in place while the leaf only moves forward over appended
 * entries; rebuilt from the branch (never from the entries' texts) when the
 * leaf jumps elsewhere.
 */
export interface BranchView {
  /** The leaf this view describes; `undefined` forces a rebuild on the next call. */
  leafId: string | null | undefined
  /** Branch entries folded in so far. */
  length: number
  readonly windows: Array<WindowView>
  /** `windowOfSeq[seq]`: the window index of an event on the branch; `undefined` when off the branch. */
  readonly windowOfSeq: Array<number | undefined>
  /** Every seq on the branch, ascending. */
  readonly seqs: Array<number>
}

export const emptyBranchView = (sessionId: string): BranchView => ({
  leafId: null,
  length: 0,
  windows: [{ ...rootWindow(sessionId, undefined), seqs: [] }],
  windowOfSeq: [],
  seqs: []
})

const foldBranchEntry = (view: BranchView, index: BranchSource, entry: RawEntry): void => {
  if (view.length === 0) view.windows[0] = { ...rootWindow(index.sessionId, entry), seqs: [] }
  view.length++
  const opening = windowOpening(entry)
  if (opening !== undefined) {
    view.windows.push({ ...openedWindow(opening, view.windows.length + 1), seqs: [] })
    return
  }
  const seqs = index.seqsByEntry.get(entry.id)
  if (seqs === undefined) return
  const windowIndex = view.windows.length - 1
  const window = view.windows[windowIndex]!
  for (const seq of seqs) {
    window.seqs.push(seq)
    view.seqs.push(seq)
    view.windowOfSeq[seq] = windowIndex
  }
}

/**
 * Rebuilds the view from the branch, root to leaf. Costs one map lookup per
 * branch entry: the events' documents are already in the index. The caller
 * indexed every entry of `branch` first.
 */
export const rebuildBranchView = (index: BranchSource, branch: ReadonlyArray<RawEntry>, leafId: string | null): BranchView => {
  const view = emptyBranchView(index.sessionId)
  for (const entry of branch) foldBranchEntry(view, index, entry)
  // A branch that does not end at the leaf we were told of was read mid-change: use it, but rebuild next time.
  view.leafId = (branch.length === 0 ? null : branch[branch.length - 1]!.id) === leafId ? leafId : undefined
  return view
}

/**
 * The path from the view's leaf to `leafId` through `appended` entries, oldest
 * first, when the new leaf descends from the old one through them (the common
 * case: the conversation just went on). `undefined` when the leaf moved
 * elsewhere, which needs the branch itself.
 */
export const pathThroughAppended = (
  view: BranchView,
  leafId: string | null,
  appended: ReadonlyArray<RawEntry>
): ReadonlyArray<RawEntry> | undefined => {
  if (view.leafId === undefined) return undefined
  if (leafId === view.leafId) return []
  if (leafId === null || appended.length === 0) return undefined
  // Pi appends an entry after its parent, so one backward pass finds the whole path: no map of the
  // appended entries, which on a first call are the whole session. Out of that order, the leaf is
  // treated as moved and the branch view rebuilt from the branch itself.
  const path: Array<RawEntry> = []
  let cursor: string | null = leafId
  for (let position = appended.length - 1; position >= 0 && cursor !== null && cursor !== view.leafId; position--) {
    const entry = appended[position]!
    if (entry.id !== cursor) continue
    path.push(entry)
    cursor = entry.parentId
  }
  if (cursor !== view.leafId) return undefined
  return path.reverse()
}

export const extendBranchView = (view: BranchView, index: BranchSource, path: ReadonlyArray<RawEntry>, leafId: string | null): void => {
  for (const entry of path) foldBranchEntry(view, index, entry)
  view.leafId = leafId
}

export const isOnBranch = (view: BranchView, seq: number): boolean => view.windowOfSeq[seq] !== undefined

export const findWindow = (view: BranchView, windowId: string): WindowView | undefined =>
  view.windows.find((window) => window.id === windowId)

export const windowOf = (view: BranchView, seq: number): WindowView | undefined => {
  const windowIndex = view.windowOfSeq[seq]
  return windowIndex === undefined ? undefined : view.windows[windowIndex]
}
