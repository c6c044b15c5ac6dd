import { Result } from "effect"
import { type BranchView, findWindow } from "./branchView.ts"
import type { HistoryRole } from "./events.ts"
import { UnknownWindow } from "./issues.ts"
import { indexAfter, indexFrom } from "./seqOrder.ts"
import { roleAt, type SessionIndex } from "./sessionIndex.ts"

/** The filters list and search share. Cursors are exclusive seq bounds. */
export interface ScopeQuery {
  readonly windowId?: string | undefined
  readonly roles?: ReadonlyArray<HistoryRole> | undefined
  readonly before?: number | undefined
  readonly after?: number | undefined
}

/**
 * A resolved query: the ascending seqs in scope, the index range the cursors
 * leave, the direction of travel and the role filter. Travel goes forward
 * (oldest first) when an `after` cursor is given, else backward from the
 * newest, so that `{}` shows the latest events and each cursor continues the
 * way it points.
 */
export interface Scope {
  readonly seqs: ReadonlyArray<number>
  /** First index in range. */
  readonly start: number
  /** One past the last index in range. */
  readonly end: number
  readonly forward: boolean
  /** Whether the role filter takes the event of a seq; reads only its role, never builds the event. */
  readonly accepts: (seq: number) => boolean
}

export const resolveScope = (index: SessionIndex, query: ScopeQuery): Result.Result<Scope, UnknownWindow> => {
  const view: BranchView = index.branch
  let seqs: ReadonlyArray<number> = view.seqs
  if (query.windowId !== undefined) {
    const window = findWindow(view, query.windowId)
    if (window === undefined) {
      return Result.fail(new UnknownWindow({ windowId: query.windowId, known: view.windows.map((w) => w.id) }))
    }
    seqs = window.seqs
  }
  const roles = query.roles === undefined || query.roles.length === 0 ? undefined : new Set(query.roles)
  const start = query.after === undefined ? 0 : indexAfter(seqs, query.after)
  const end = query.before === undefined ? seqs.length : Math.max(start, indexFrom(seqs, query.before))
  return Result.succeed({
    seqs,
    start,
    end,
    forward: query.after !== undefined,
    accepts: roles === undefined ? () => true : (seq: number) => roles.has(roleAt(index, seq)!)
  })
}

/** Whether any accepted event of the scope lies strictly before `position` (index) going down, or from it going up. */
export const anyAccepted = (index: SessionIndex, scope: Scope, from: number, forward: boolean): boolean => {
  if (forward) {
    for (let i = from; i < scope.seqs.length; i++) if (scope.accepts(scope.seqs[i]!)) return true
  } else {
    for (let i = from - 1; i >= 0; i--) if (scope.accepts(scope.seqs[i]!)) return true
  }
  return false
}
