import { Context, type Effect } from "effect"
import type { ListPage, ListQuery } from "./listing.ts"
import type { ReadPage, ReadQuery } from "./readPage.ts"
import type { WindowSummary } from "./render.ts"
import type { EventNotFound, NotOnBranch, UnknownWindow } from "./issues.ts"
import type { InvalidPattern } from "../kernel/patterns.ts"
import type { SearchPage, SearchQuery } from "./eventSearch.ts"
import type { PiSession } from "../kernel/PiSession.ts"

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
}>()("pi-context/History") {}
