import { ToolResultByteLimit } from "../kernel/protocol.ts"
import { type Document, documentLength, type HistoryEvent } from "./events.ts"

/** Bytes a page's rows may take; the rest of the 32 KiB bound is left for headers and continuations. */
export const rowBudgetBytes = ToolResultByteLimit - 2048

export const previewWidth = 160

/**
 * A one-line preview of a document from UTF-16 index `from`: whitespace runs
 * collapsed, at most `width` code points, an ellipsis when cut.
 */
export const previewOf = (document: Document, from: number = 0, width: number = previewWidth): string => {
  // Whitespace collapses, so read a generous slice; only it is ever scanned, never the whole body.
  const sliceEnd = from + width * 4
  const { head, body } = document
  const raw = from < head.length
    ? head.slice(from, sliceEnd) + body.slice(0, Math.max(0, sliceEnd - head.length))
    : body.slice(from - head.length, sliceEnd - head.length)
  const flat = raw.replace(/\s+/g, " ")
  const points = Array.from(flat)
  const cut = points.length > width || sliceEnd < documentLength(document)
  let shown = points.slice(0, width)
  // A slice can end inside a surrogate pair; never hand half of one to the model.
  const last = shown[shown.length - 1]
  if (last !== undefined && last.length === 1 && last.charCodeAt(0) >= 0xd800 && last.charCodeAt(0) <= 0xdbff) shown = shown.slice(0, -1)
  return cut ? `${shown.join("")}…` : shown.join("")
}

/** `2025-05-01T10:00:03.123Z` → `2025-05-01 10:00:03`: enough to place an event, cheap to read. */
export const shortTime = (timestamp: string): string => timestamp.slice(0, 19).replace("T", " ")

export const eventLabel = (event: HistoryEvent): string => {
  const kind = event.kind === event.role ? "" : ` ${event.kind}`
  const status = event.status === undefined ? "" : ` ${event.status}`
  return `#${event.seq} ${event.role}${kind}${status}`
}

export const eventLine = (event: HistoryEvent): string =>
  `${eventLabel(event)} ${shortTime(event.timestamp)} | ${previewOf(event)} (${documentLength(event)} chars)`

/** A run of consecutive tool events shown as one row, with the call that lists them one by one. */
export interface ToolRun {
  readonly _tag: "ToolRun"
  readonly seqs: ReadonlyArray<number>
  readonly names: ReadonlyArray<readonly [name: string, count: number]>
  readonly errors: number
  readonly unfinished: number
}

export type ListRow = { readonly _tag: "Event"; readonly event: HistoryEvent } | ToolRun

export const rowSeqs = (row: ListRow): ReadonlyArray<number> => row._tag === "Event" ? [row.event.seq] : row.seqs

export const toolRun = (events: ReadonlyArray<HistoryEvent>): ToolRun => {
  const names = new Map<string, number>()
  let errors = 0
  let unfinished = 0
  for (const event of events) {
    names.set(event.kind, (names.get(event.kind) ?? 0) + 1)
    if (event.status === "error") errors++
    else if (event.status === "unfinished") unfinished++
  }
  return { _tag: "ToolRun", seqs: events.map((event) => event.seq), names: [...names], errors, unfinished }
}

export const expandCall = (run: ToolRun): string => {
  const first = run.seqs[0]!
  const last = run.seqs[run.seqs.length - 1]!
  return `history_list ${JSON.stringify({ roles: ["tool"], after: first - 1, before: last + 1 })}`
}

export const toolRunLine = (run: ToolRun): string => {
  const first = run.seqs[0]!
  const last = run.seqs[run.seqs.length - 1]!
  const shownNames = run.names.slice(0, 8).map(([name, count]) => count === 1 ? name : `${name} ×${count}`)
  if (run.names.length > 8) shownNames.push(`${run.names.length - 8} more tools`)
  const names = shownNames.join(", ")
  const trouble = [
    run.errors > 0 ? `${run.errors} error` : undefined,
    run.unfinished > 0 ? `${run.unfinished} unfinished` : undefined
  ].filter((part) => part !== undefined)
  const notes = trouble.length > 0 ? ` (${trouble.join(", ")})` : ""
  return `#${first}–#${last} ${run.seqs.length} tool events folded: ${names}${notes} | expand: ${expandCall(run)}`
}

export const rowLine = (row: ListRow): string => row._tag === "Event" ? eventLine(row.event) : toolRunLine(row)
