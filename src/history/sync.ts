import type { RawEntry } from "../kernel/entries.ts"
import type { WindowSpan } from "../window/walk.ts"
import { followSpans } from "./branchView.ts"
import { emptyIndex, extendIndex, indexMatches, type SessionIndex } from "./sessionIndex.ts"

/**
 * Brings `known` (if any) up to date with the session: the entries appended
 * since are folded in (a session whose start no longer matches is indexed
 * afresh), then the branch view follows the active branch's windows, which
 * the Window room read. Every entry of `spans` must be among `entries`.
 */
export const catchUp = (
  known: SessionIndex | undefined,
  sessionId: string,
  entries: ReadonlyArray<RawEntry>,
  spans: ReadonlyArray<WindowSpan>
): SessionIndex => {
  const index = known !== undefined && indexMatches(known, entries) ? known : emptyIndex(sessionId)
  extendIndex(index, entries)
  if (followSpans(index.branch, index, spans)) index.branchRebuilds++
  return index
}
