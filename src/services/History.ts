import { Context, type Effect, Schema } from "effect"
import type { ListPage, ListQuery } from "../domain/history/listing.ts"
import type { ReadPage, ReadQuery } from "../domain/history/read.ts"
import type { WindowSummary } from "../domain/history/render.ts"
import type { HistoryIssue } from "../domain/history/scope.ts"
import type { SearchPage, SearchQuery } from "../domain/history/search.ts"
import type { InvalidPattern } from "../domain/patterns.ts"
import type { PiSession } from "./PiSession.ts"

// Tags and fields mirror the domain's `HistoryIssue`, so an error is described by the same pure function.

export class UnknownWindow extends Schema.TaggedError<UnknownWindow>()("UnknownWindow", {
  windowId: Schema.String,
  known: Schema.Array(Schema.String)
}) {}

export class EventNotFound extends Schema.TaggedError<EventNotFound>()("EventNotFound", {
  seq: Schema.Number,
  lastSeq: Schema.Number
}) {}

export class NotOnBranch extends Schema.TaggedError<NotOnBranch>()("NotOnBranch", {
  seq: Schema.Number
}) {}

export type HistoryError = UnknownWindow | EventNotFound | NotOnBranch | InvalidPattern

/** The error class for each issue, so each operation keeps its own narrow error type. */
export type HistoryErrorFor<I extends HistoryIssue> = Extract<HistoryError, { readonly _tag: I["_tag"] }>

export const historyError = <I extends HistoryIssue>(issue: I): HistoryErrorFor<I> => errorOf(issue) as HistoryErrorFor<I>

const errorOf = (issue: HistoryIssue): HistoryError => {
  switch (issue._tag) {
    case "UnknownWindow":
      return new UnknownWindow({ windowId: issue.windowId, known: issue.known })
    case "EventNotFound":
      return new EventNotFound({ seq: issue.seq, lastSeq: issue.lastSeq })
    case "NotOnBranch":
      return new NotOnBranch({ seq: issue.seq })
    case "InvalidPattern":
      return issue
  }
}

/** How much work the index of the current session has done: evidence that calls stay incremental. */
export interface HistoryStats {
  readonly sessionId: string
  readonly entries: number
  readonly events: number
  readonly documentBuilds: number
  readonly branchRebuilds: number
}

/**
 * Read access to everything the session holds, across resets, for the
 * history tools. Every call first brings the index up to date with the
 * session behind the current `PiSession` (only the entries appended since
 * the last call are processed), then answers from the active branch.
 */
export class History extends Context.Service<History, {
  /** The windows of the active branch, oldest first. */
  readonly windows: Effect.Effect<ReadonlyArray<WindowSummary>, never, PiSession>
  readonly list: (query: ListQuery) => Effect.Effect<ListPage, UnknownWindow, PiSession>
  readonly search: (query: SearchQuery) => Effect.Effect<SearchPage, UnknownWindow | InvalidPattern, PiSession>
  readonly read: (query: ReadQuery) => Effect.Effect<ReadPage, EventNotFound | NotOnBranch, PiSession>
  readonly stats: Effect.Effect<HistoryStats, never, PiSession>
}>()("pi-context/History") {}
