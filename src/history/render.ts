import { ToolResultByteLimit } from "../kernel/protocol.ts"
import { clip, continuationCall, fitParts, utf8Length } from "../kernel/toolOutcome.ts"
import type { HistoryRole } from "./events.ts"
import { shownWindowId } from "./issues.ts"
import type { ListPage, ListQuery } from "./listing.ts"
import type { ReadPage } from "./readPage.ts"
import { eventLabel, shortTime } from "./rows.ts"
import type { SearchPage, SearchQuery } from "./eventSearch.ts"
import type { SessionIndex } from "./sessionIndex.ts"
import type { Window, WindowFacts } from "../kernel/facts.ts"
import { windowFactsSummary } from "../window/view.ts"

/** What `history_windows` reports for one window of the active branch: the window and the seqs of its events. */
export interface WindowSummary extends Window {
  readonly firstSeq: number | undefined
  readonly lastSeq: number | undefined
  readonly count: number
  readonly current: boolean
}

export const windowSummaries = (index: SessionIndex): ReadonlyArray<WindowSummary> => {
  const windows = index.branch.windows
  return windows.map(({ id, ordinal, isRoot, startedAt, seqs }, position) => ({
    id,
    ordinal,
    isRoot,
    startedAt,
    firstSeq: seqs[0],
    lastSeq: seqs[seqs.length - 1],
    count: seqs.length,
    current: position === windows.length - 1
  }))
}

const windowLine = (window: WindowSummary, facts: WindowFacts | undefined): string => {
  const span = window.firstSeq === undefined ? "no events" : `#${window.firstSeq}–#${window.lastSeq} (${window.count} events)`
  const created = window.startedAt === undefined ? "" : ` created ${shortTime(new Date(window.startedAt).toISOString())}`
  const shown = facts === undefined ? "" : ` (${windowFactsSummary(facts)})`
  return `${shownWindowId(window.id)}${created} ${span}${shown}${window.current ? " [current]" : ""}`
}

/** Newest windows first to fit, then shown oldest first; what did not fit is named, never dropped silently. */
export const renderWindows = (windows: ReadonlyArray<WindowSummary>, facts: ReadonlyArray<WindowFacts> = []): string => {
  const factsById = new Map(facts.map((f) => [f.id, f]))
  const budget = ToolResultByteLimit - 1024
  const lines: Array<string> = []
  let bytes = 0
  for (let position = windows.length - 1; position >= 0; position--) {
    const line = windowLine(windows[position]!, factsById.get(windows[position]!.id))
    if (bytes + utf8Length(line) + 1 > budget) break
    lines.push(line)
    bytes += utf8Length(line) + 1
  }
  lines.reverse()
  const hidden = windows.length - lines.length
  const header = `${windows.length} window(s) on the active branch, oldest first:`
  const footer = hidden === 0
    ? "List a window with history_list {\"window_id\": ...}; search all of them with history_search."
    : `${hidden} older window(s) not shown; reach their events with history_list {"before": ${windows[hidden]?.firstSeq ?? 1}}.`
  return fitParts({ head: header, body: lines.join("\n"), tail: footer })
}

const queryParams = (query: ListQuery | SearchQuery): Record<string, unknown> => {
  const params: Record<string, unknown> = {}
  if ("query" in query) {
    params.query = query.query
    if (query.regex) params.regex = true
  }
  if (query.windowId !== undefined) params.window_id = query.windowId
  if (query.roles !== undefined && query.roles.length > 0) params.roles = query.roles as ReadonlyArray<HistoryRole>
  return params
}

/** A query as shown in a heading: enough to recognise it, never the whole of a 30 KB one. */
const shownQuery = (query: string): string => JSON.stringify(clip(query, 200))

export const renderList = (page: ListPage, query: ListQuery): string => {
  const scope = query.windowId === undefined ? "the active branch" : `window ${shownWindowId(query.windowId)}`
  const header = page.rows.length === 0
    ? `No events in ${scope} for this page.`
    : `Events of ${scope}, oldest first${page.folded ? " (runs of tool events folded)" : ""}:`
  const params = queryParams(query)
  const older = page.older === undefined
    ? "older: none"
    : `older: ${continuationCall("history_list", params, { before: page.older })}`
  const newer = page.newer === undefined
    ? "newer: none"
    : `newer: ${continuationCall("history_list", params, { after: page.newer, ...(query.after !== undefined && query.before !== undefined ? { before: query.before } : {}) })}`
  return fitParts({ head: header, body: page.lines.join("\n"), tail: [older, newer, "Read one event in full: history_read {\"seq\": N}."].join("\n") })
}

export const renderSearch = (page: SearchPage, query: SearchQuery): string => {
  const order = query.after === undefined ? "newest first" : "oldest first"
  const header = page.hits.length === 0
    ? `No match for ${shownQuery(query.query)} in ${page.scanned} event(s) searched.`
    : `${page.hits.length} event(s) matching ${shownQuery(query.query)}, ${order}; each preview starts at the match:`
  const params = queryParams(query)
  const more = page.more === undefined
    ? "more: none (search finished)"
    : `more: ${continuationCall("history_search", params, { ...page.more, ...("after" in page.more && query.before !== undefined ? { before: query.before } : {}) })}${page.scanBoundReached ? " (stopped on the per-call scan limit of size or time; continue to search further)" : ""}`
  return fitParts({ head: header, body: page.hits.map((hit) => hit.line).join("\n"), tail: more })
}

export const renderRead = (read: ReadPage): string => {
  const { event, page } = read
  const end = page.offset + [...page.text].length
  const header = `${eventLabel(event)} ${shortTime(event.timestamp)} window ${shownWindowId(read.windowId)}`
  const span = `code points ${page.offset}–${end} of ${page.total}`
  const next = page.nextOffset === undefined
    ? "end of event"
    : `continue: ${continuationCall("history_read", {}, { seq: event.seq, offset: page.nextOffset })}`
  return fitParts({ head: `${header}\n${span}\n---`, body: page.text, tail: `---\n${next}` })
}
