import { Result } from "effect"
import { utf8Length } from "../kernel/toolOutcome.ts"
import type { HistoryEvent } from "./events.ts"
import { type ListRow, rowBudgetBytes, rowLine, rowSeqs, toolRun } from "./rows.ts"
import { anyAccepted, resolveScope, type Scope, type ScopeQuery } from "./scope.ts"
import { indexAfter, indexFrom } from "./seqOrder.ts"
import type { UnknownWindow } from "./issues.ts"
import { eventAt, roleAt, type SessionIndex } from "./sessionIndex.ts"

export interface ListQuery extends ScopeQuery {
  readonly limit: number
}

export interface ListPage {
  /** Oldest first. */
  readonly rows: ReadonlyArray<ListRow>
  /** Lines of `rows`, rendered once while measuring the page. */
  readonly lines: ReadonlyArray<string>
  /** Pass as `before` to see the older events; absent when there are none. */
  readonly older: number | undefined
  /** Pass as `after` to see the newer events; absent when there are none. */
  readonly newer: number | undefined
  readonly folded: boolean
}

/**
 * Runs of tool events fold into one row unless the caller asked for tools
 * alone: that is how a folded row is expanded, so expanding never folds again.
 */
export const foldsTools = (query: ScopeQuery): boolean =>
  !(query.roles !== undefined && query.roles.length > 0 && query.roles.every((role) => role === "tool"))

/**
 * Groups accepted events in the direction of travel into at most `limit`
 * rows. A row is never split by the page: grouping stops only where a new
 * row would begin.
 */
const collectRows = (index: SessionIndex, query: ListQuery, scope: Scope): Array<ListRow> => {
  const { seqs, start, end, forward, accepts } = scope
  const fold = foldsTools(query)
  const groups: Array<Array<HistoryEvent>> = []
  let run: Array<HistoryEvent> | undefined
  for (let step = 0; step < end - start; step++) {
    const seq = seqs[forward ? start + step : end - 1 - step]!
    if (!accepts(seq)) continue
    const isTool = roleAt(index, seq) === "tool"
    if (fold && isTool && run !== undefined) {
      run.push(eventAt(index, seq)!)
      continue
    }
    if (groups.length === query.limit) break
    const group = [eventAt(index, seq)!]
    groups.push(group)
    run = fold && isTool ? group : undefined
  }
  return groups.map((group): ListRow => {
    const ordered = forward ? group : group.reverse()
    return ordered.length === 1 ? { _tag: "Event", event: ordered[0]! } : toolRun(ordered)
  })
}

/** A page of the active branch (or one window of it), bounded in rows and in bytes. */
export const listPage = (index: SessionIndex, query: ListQuery): Result.Result<ListPage, UnknownWindow> => {
  const resolved = resolveScope(index, query)
  if (Result.isFailure(resolved)) return Result.fail(resolved.failure)
  const scope = resolved.success
  const travelRows = collectRows(index, query, scope)

  // Keep the rows nearest the cursor that fit the byte budget; the cursors then continue exactly where the page stops.
  const kept: Array<{ readonly row: ListRow; readonly line: string }> = []
  let bytes = 0
  for (const row of travelRows) {
    const line = rowLine(row)
    const size = utf8Length(line) + 1
    if (bytes + size > rowBudgetBytes && kept.length > 0) break
    kept.push({ row, line })
    bytes += size
  }
  if (!scope.forward) kept.reverse()

  const covered = kept.flatMap(({ row }) => rowSeqs(row))
  const lowIndex = covered.length > 0 ? indexFrom(scope.seqs, covered[0]!) : scope.start
  const highIndex = covered.length > 0 ? indexAfter(scope.seqs, covered[covered.length - 1]!) : scope.end
  const lowSeq = covered.length > 0 ? covered[0]! : scope.seqs[scope.start] ?? (query.after ?? 0) + 1
  const highSeq = covered.length > 0 ? covered[covered.length - 1]! : scope.seqs[scope.end - 1] ?? (query.before ?? 1) - 1

  return Result.succeed({
    rows: kept.map(({ row }) => row),
    lines: kept.map(({ line }) => line),
    older: anyAccepted(index, scope, lowIndex, false) ? lowSeq : undefined,
    newer: anyAccepted(index, scope, highIndex, true) ? highSeq : undefined,
    folded: foldsTools(query)
  })
}
