import { Result } from "effect"
import { type BranchView, findWindow } from "./branchView.ts"
import type { HistoryEvent, HistoryRole } from "./events.ts"
import { UnknownWindow } from "./issues.ts"
import type { SessionIndex } from "./sessionIndex.ts"


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
  readonly accepts: (event: HistoryEvent) => boolean
}

/** First index whose seq is > `seq` (seqs ascending). */
export const indexAfter = (seqs: ReadonlyArray<number>, seq: number): number => {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (seqs[middle]! <= seq) low = middle + 1
    else high = middle
  }
  return low
}

/** First index whose seq is >= `seq`. */
export const indexFrom = (seqs: ReadonlyArray<number>, seq: number): number => indexAfter(seqs, seq - 1)

export const resolveScope = (view: BranchView, query: ScopeQuery): Result.Result<Scope, UnknownWindow> => {
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
    accepts: roles === undefined ? () => true : (event: HistoryEvent) => roles.has(event.role)
  })
}

/** Whether any accepted event of the scope lies strictly before `position` (index) going down, or from it going up. */
export const anyAccepted = (index: SessionIndex, scope: Scope, from: number, forward: boolean): boolean => {
  if (forward) {
    for (let i = from; i < scope.seqs.length; i++) if (scope.accepts(index.events[scope.seqs[i]! - 1]!)) return true
  } else {
    for (let i = from - 1; i >= 0; i--) if (scope.accepts(index.events[scope.seqs[i]! - 1]!)) return true
  }
  return false
}
