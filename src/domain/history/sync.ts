import type { RawEntry } from "../entries.ts"
import { extendBranchView, pathThroughAppended, rebuildBranchView } from "./branchView.ts"
import { emptyIndex, extendIndex, indexMatches, type SessionIndex } from "./sessionIndex.ts"

/**
 * Brings `known` (if any) up to date with the session: the index to use, and
 * whether its branch view still needs the active branch (the leaf moved
 * somewhere the appended entries do not lead). Only appended entries are
 * processed; a session whose start no longer matches is indexed afresh.
 */
export const catchUp = (
  known: SessionIndex | undefined,
  sessionId: string,
  entries: ReadonlyArray<RawEntry>,
  leafId: string | null
): { readonly index: SessionIndex; readonly needsBranch: boolean } => {
  const index = known !== undefined && indexMatches(known, entries) ? known : emptyIndex(sessionId)
  const from = index.entryCount
  extendIndex(index, entries)
  const path = pathThroughAppended(index.branch, leafId, entries.slice(from))
  if (path === undefined) return { index, needsBranch: true }
  extendBranchView(index.branch, index, path, leafId)
  return { index, needsBranch: false }
}

/** Rebuilds the branch view from the active branch, root to leaf (entries already indexed). */
export const adoptBranch = (index: SessionIndex, branch: ReadonlyArray<RawEntry>, leafId: string | null): void => {
  index.branch = rebuildBranchView(index, branch, leafId)
  index.branchRebuilds++
}
