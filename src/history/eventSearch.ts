import { Result } from "effect"
import { compileQuery, type InvalidPattern, type RegexEngine, type TextPattern } from "../kernel/patterns.ts"
import { type ScanDeadline, unlimitedScan } from "../kernel/scanDeadline.ts"
import { codePointLength, codePointOffsetOf } from "../kernel/textWindow.ts"
import { utf8Length } from "../kernel/toolOutcome.ts"
import { windowOf } from "./branchView.ts"
import { currentTurnSeqs } from "./currentTurn.ts"
import { documentLength, type HistoryEvent } from "./events.ts"
import { eventLabel, previewOf, rowBudgetBytes, shortTime } from "./rows.ts"
import type { UnknownWindow } from "./issues.ts"
import { resolveScope, type ScopeQuery } from "./scope.ts"
import { eventAt, type SessionIndex } from "./sessionIndex.ts"

export interface SearchQuery extends ScopeQuery {
  readonly query: string
  readonly regex: boolean
  readonly limit: number
  /** Leave out the current turn's own calls and prompt (`currentTurnSeqs`); the model's searches do. */
  readonly skipCurrentTurn?: boolean | undefined
}

export interface SearchHit {
  readonly event: HistoryEvent
  readonly windowId: string
  /** Code-point offset of the match in the event's text: pass it to `history_read`. */
  readonly offset: number
  readonly line: string
}

export interface SearchPage {
  /** In the order searched: newest first, or oldest first when searching `after` a seq. */
  readonly hits: ReadonlyArray<SearchHit>
  /** The cursor that continues the search where it stopped; absent when the scope is exhausted. */
  readonly more: { readonly before: number } | { readonly after: number } | undefined
  /** True when the page stopped on the scan bound rather than on `limit`. */
  readonly scanBoundReached: boolean
  readonly scanned: number
}

/**
 * Text scanned per call, in UTF-16 units: with the time budget, it bounds
 * one search on a huge session; past either, the page says where to continue.
 */
export const defaultScanBound = 16_000_000

export const readCall = (seq: number, offset: number): string => `history_read ${JSON.stringify({ seq, offset })}`

const hitLine = (event: HistoryEvent, windowId: string, index: number, offset: number): string =>
  `${eventLabel(event)} ${shortTime(event.timestamp)} window ${windowId} | ${previewOf(event, index)} | ${readCall(event.seq, offset)}`

/**
 * The first match in the document as (UTF-16 index, code-point offset), or
 * "Stopped" when the budget ran out inside it. Head and body are scanned
 * apart, so they are never joined; a match does not span the seam between
 * them (the head ends with a line break).
 */
const firstMatch = (
  pattern: TextPattern,
  event: HistoryEvent,
  budget: ScanDeadline
): { readonly index: number; readonly offset: number } | undefined | "Stopped" => {
  const inHead = pattern.indexIn(event.head)
  if (inHead !== -1) return { index: inHead, offset: codePointOffsetOf(event.head, inHead) }
  const inBody = pattern.scanner(event.body)(0, budget)
  if (inBody._tag === "Stopped") return "Stopped"
  if (inBody._tag === "End") return undefined
  return { index: event.head.length + inBody.index, offset: codePointLength(event.head) + codePointOffsetOf(event.body, inBody.index) }
}

/**
 * The first match in each event of the scope, at most `limit` of them and
 * within the byte bound. The scan stops once `scanBound` units were scanned
 * or the budget is spent (between two events, or inside an event, which the
 * next call then scans again), always after one event at least.
 */
export const searchPage = (
  index: SessionIndex,
  query: SearchQuery,
  engine: RegexEngine | undefined,
  scanBound: number = defaultScanBound,
  budget: ScanDeadline = unlimitedScan
): Result.Result<SearchPage, UnknownWindow | InvalidPattern> => {
  const matcher = compileQuery(query.query, query.regex, engine)
  if (Result.isFailure(matcher)) return Result.fail(matcher.failure)
  const resolved = resolveScope(index, query)
  if (Result.isFailure(resolved)) return Result.fail(resolved.failure)
  const { seqs, start, end, forward, accepts } = resolved.success
  const pattern = matcher.success
  const skipped = query.skipCurrentTurn === true ? currentTurnSeqs(index) : undefined
  const hits: Array<SearchHit> = []
  let bytes = 0
  let scannedUnits = 0
  let scanned = 0
  let lastSeq: number | undefined
  let stoppedOn: "limit" | "bytes" | "scan" | undefined
  for (let step = 0; step < end - start; step++) {
    if (hits.length === query.limit) {
      stoppedOn = "limit"
      break
    }
    if (scannedUnits >= scanBound || (scanned > 0 && budget.spent())) {
      stoppedOn = "scan"
      break
    }
    const seq = seqs[forward ? start + step : end - 1 - step]!
    if (!accepts(seq) || skipped?.has(seq) === true) {
      lastSeq = seq
      continue
    }
    const event = eventAt(index, seq)!
    // The first event is scanned to its end whatever the budget, so that every call moves the cursor on.
    const match = firstMatch(pattern, event, scanned === 0 ? unlimitedScan : budget)
    if (match === "Stopped") {
      stoppedOn = "scan"
      break
    }
    scanned++
    scannedUnits += documentLength(event)
    if (match !== undefined) {
      const { offset } = match
      const line = hitLine(event, windowOf(index.branch, event.seq)?.id ?? "", match.index, offset)
      const size = utf8Length(line) + 1
      if (bytes + size > rowBudgetBytes && hits.length > 0) {
        stoppedOn = "bytes"
        break
      }
      bytes += size
      hits.push({ event, windowId: windowOf(index.branch, event.seq)?.id ?? "", offset, line })
    }
    lastSeq = event.seq
  }
  // Continue after the last event fully handled: the last hit when stopped on a bound, else the last one scanned.
  const resumeFrom = stoppedOn === undefined ? undefined : lastSeq
  return Result.succeed({
    hits,
    more: resumeFrom === undefined ? undefined : forward ? { after: resumeFrom } : { before: resumeFrom },
    scanBoundReached: stoppedOn === "scan",
    scanned
  })
}
