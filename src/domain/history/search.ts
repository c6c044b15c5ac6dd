import { Result } from "effect"
import { codePointLength, codePointOffsetOf } from "../textWindow.ts"
import { utf8Length } from "../toolOutcome.ts"
import { windowOf } from "./branchView.ts"
import { documentLength, type HistoryEvent } from "./events.ts"
import { eventLabel, previewOf, rowBudgetBytes, shortTime } from "./rows.ts"
import { BadRegex, type UnknownWindow } from "./issues.ts"
import { resolveScope, type ScopeQuery } from "./scope.ts"
import type { SessionIndex } from "./sessionIndex.ts"

export interface SearchQuery extends ScopeQuery {
  readonly query: string
  readonly regex: boolean
  readonly limit: number
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
 * Text scanned per call, in UTF-16 units. It bounds the time of one search
 * (a pathological regex included) on a huge session to about 20 ms here;
 * past it the page says where to continue.
 */
export const defaultScanBound = 16_000_000

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Literal queries and regexes both match case-insensitively; a regex that does not compile is an issue, not a throw. */
export const compileMatcher = (query: string, regex: boolean): Result.Result<RegExp, BadRegex> => {
  if (!regex) return Result.succeed(new RegExp(escapeRegExp(query), "i"))
  try {
    return Result.succeed(new RegExp(query, "i"))
  } catch (error) {
    return Result.fail(new BadRegex({ pattern: query, reason: error instanceof Error ? error.message : String(error) }))
  }
}

export const readCall = (seq: number, offset: number): string => `history_read ${JSON.stringify({ seq, offset })}`

const hitLine = (event: HistoryEvent, windowId: string, index: number, offset: number): string =>
  `${eventLabel(event)} ${shortTime(event.timestamp)} window ${windowId} | ${previewOf(event, index)} | ${readCall(event.seq, offset)}`

/**
 * The first match in the document as (UTF-16 index, code-point offset). Head
 * and body are scanned apart, so the body is never copied; a match does not
 * span the seam between them (the head ends with a line break).
 */
const firstMatch = (pattern: RegExp, event: HistoryEvent): { readonly index: number; readonly offset: number } | undefined => {
  const inHead = pattern.exec(event.head)
  if (inHead !== null) return { index: inHead.index, offset: codePointOffsetOf(event.head, inHead.index) }
  const inBody = pattern.exec(event.body)
  if (inBody === null) return undefined
  return { index: event.head.length + inBody.index, offset: codePointLength(event.head) + codePointOffsetOf(event.body, inBody.index) }
}

/** The first match in each event of the scope, at most `limit` of them and within the byte bound. */
export const searchPage = (
  index: SessionIndex,
  query: SearchQuery,
  scanBound: number = defaultScanBound
): Result.Result<SearchPage, UnknownWindow | BadRegex> => {
  const matcher = compileMatcher(query.query, query.regex)
  if (Result.isFailure(matcher)) return Result.fail(matcher.failure)
  const resolved = resolveScope(index.branch, query)
  if (Result.isFailure(resolved)) return Result.fail(resolved.failure)
  const { seqs, start, end, forward, accepts } = resolved.success
  const pattern = matcher.success
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
    if (scannedUnits >= scanBound) {
      stoppedOn = "scan"
      break
    }
    const event = index.events[seqs[forward ? start + step : end - 1 - step]! - 1]!
    if (!accepts(event)) {
      lastSeq = event.seq
      continue
    }
    scanned++
    scannedUnits += documentLength(event)
    const match = firstMatch(pattern, event)
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
