import { Effect, Result, Schema } from "effect"
import { historyRoles } from "./events.ts"
import type { ListQuery } from "./listing.ts"
import { listLimit, searchLimit } from "./historyLimits.ts"
import { renderList, renderRead, renderSearch, renderWindows } from "./render.ts"
import type { SearchQuery } from "./eventSearch.ts"
import { ToolName } from "../kernel/protocol.ts"
import { failed, ok, type ToolOutcome, truncateUtf8 } from "../kernel/toolOutcome.ts"
import { type HistoryIssue, issueCode } from "./issues.ts"
import { withNoteChanges } from "../notes/versions/windowChanges.ts"
import { History } from "./History.ts"
import { NotesVersions } from "../notes/versions/NotesVersions.ts"
import type { PiSession } from "../kernel/PiSession.ts"
import { decodeParams, type InvalidParams, pageLimit } from "../kernel/params.ts"
import { Window } from "../window/Window.ts"

const Role = Schema.Literals(historyRoles)
const Cursor = Schema.optional(Schema.Int)
const Limit = Schema.optional(Schema.Int)
const WindowFilter = Schema.optional(Schema.String)
const Roles = Schema.optional(Schema.Array(Role))

const WindowsParams = Schema.Struct({})
const ListParams = Schema.Struct({ window_id: WindowFilter, roles: Roles, before: Cursor, after: Cursor, limit: Limit })
const SearchParams = Schema.Struct({
  query: Schema.NonEmptyString,
  regex: Schema.optional(Schema.Boolean),
  roles: Roles,
  window_id: WindowFilter,
  before: Cursor,
  after: Cursor,
  limit: Limit
})
const ReadParams = Schema.Struct({ seq: Schema.Int, offset: Schema.optional(Schema.Int), limit: Limit })

const decodeWindows = decodeParams(WindowsParams, ToolName.historyWindows)
const decodeList = decodeParams(ListParams, ToolName.historyList)
const decodeSearch = decodeParams(SearchParams, ToolName.historySearch)
const decodeRead = decodeParams(ReadParams, ToolName.historyRead)

const invalid = (error: InvalidParams): ToolOutcome => failed("invalid_argument", error.message)

/** A history error as the model reads it: its own sentence, under its code. */
const fromError = (error: HistoryIssue): ToolOutcome => failed(issueCode(error), error.message)

/** The renderers already page to the bound; this only guards the promise that no result exceeds it. */
const bounded = (text: string, details: unknown): ToolOutcome => ok(truncateUtf8(text).text, details)

/** How long `history_windows` waits for the note versions' log: a tool call stays well under a quarter second. */
export const ToolLogBudgetMs = 200

const historyWindows = Effect.fn("tools.history_windows")(function*(params: unknown): Effect.fn.Return<ToolOutcome, never, History | Window | NotesVersions | PiSession> {
  const decoded = yield* Effect.result(decodeWindows(params))
  if (Result.isFailure(decoded)) return invalid(decoded.failure)
  const windows = yield* (yield* History).windows
  // A tool call answers within the scans' bars: the commits still in flight are named as pending, never waited for,
  // and a git that is slow or hangs leaves the note changes out rather than holding the model's turn.
  const changes = yield* (yield* NotesVersions).sessionChanges({ waitForCommitsMs: 0, logBudgetMs: ToolLogBudgetMs })
  const facts = withNoteChanges(yield* (yield* Window).windows, changes)
  return bounded(renderWindows(windows, facts), { windows: windows.slice(-100), facts: facts.slice(-100) })
})

const historyList = Effect.fn("tools.history_list")(function*(params: unknown): Effect.fn.Return<ToolOutcome, never, History | PiSession> {
  const decoded = yield* Effect.result(decodeList(params))
  if (Result.isFailure(decoded)) return invalid(decoded.failure)
  const { window_id, roles, before, after, limit } = decoded.success
  const query: ListQuery = { windowId: window_id, roles, before, after, limit: pageLimit(limit, listLimit) }
  return yield* (yield* History).list(query).pipe(
    Effect.map((page) =>
      bounded(renderList(page, query), {
        rows: page.rows.map((row) =>
          row._tag === "Event"
            ? { seq: row.event.seq, role: row.event.role }
            : { first: row.seqs[0], last: row.seqs[row.seqs.length - 1], folded: row.seqs.length }
        ),
        older: page.older,
        newer: page.newer
      })
    ),
    Effect.catch((error) => Effect.succeed(fromError(error)))
  )
})

const historySearch = Effect.fn("tools.history_search")(function*(params: unknown): Effect.fn.Return<ToolOutcome, never, History | PiSession> {
  const decoded = yield* Effect.result(decodeSearch(params))
  if (Result.isFailure(decoded)) return invalid(decoded.failure)
  const { query: text, regex, roles, window_id, before, after, limit } = decoded.success
  const query: SearchQuery = { query: text, regex: regex === true, windowId: window_id, roles, before, after, limit: pageLimit(limit, searchLimit), skipCurrentTurn: true }
  return yield* (yield* History).search(query).pipe(
    Effect.map((page) =>
      bounded(renderSearch(page, query), {
        hits: page.hits.map((hit) => ({ seq: hit.event.seq, offset: hit.offset, windowId: hit.windowId })),
        more: page.more
      })
    ),
    Effect.catch((error) => Effect.succeed(fromError(error)))
  )
})

const historyRead = Effect.fn("tools.history_read")(function*(params: unknown): Effect.fn.Return<ToolOutcome, never, History | PiSession> {
  const decoded = yield* Effect.result(decodeRead(params))
  if (Result.isFailure(decoded)) return invalid(decoded.failure)
  const { seq, offset, limit } = decoded.success
  return yield* (yield* History).read({ seq, offset, limit }).pipe(
    Effect.map((read) =>
      bounded(renderRead(read), {
        seq: read.event.seq,
        windowId: read.windowId,
        offset: read.page.offset,
        nextOffset: read.page.nextOffset,
        total: read.page.total
      })
    ),
    Effect.catch((error) => Effect.succeed(fromError(error)))
  )
})

export const historyToolHandlers = {
  [ToolName.historyWindows]: historyWindows,
  [ToolName.historyList]: historyList,
  [ToolName.historySearch]: historySearch,
  [ToolName.historyRead]: historyRead
} as const
