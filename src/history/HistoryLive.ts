import { Effect, Layer, Ref, Result, Semaphore } from "effect"
import { type ListQuery, listPage } from "./listing.ts"
import { type ReadQuery, readPage } from "./readPage.ts"
import { windowSummaries } from "./render.ts"
import { HistoryToolNames } from "../kernel/protocol.ts"
import type { HistoryIssue } from "./issues.ts"
import { defaultScanBound, type SearchQuery, searchPage } from "./eventSearch.ts"
import { engineFor } from "../kernel/regexEngine.ts"
import type { SessionIndex } from "./sessionIndex.ts"
import { catchUp } from "./sync.ts"
import { History } from "./History.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { CurrentScanDeadline } from "../kernel/CurrentScanDeadline.ts"
import { Window } from "../window/Window.ts"
import * as WindowLive from "../window/WindowLive.ts"

/** Indexes kept per extension instance: the current session and a few it switched away from. */
const sessionsKept = 4

const remember = (index: SessionIndex) => (indexes: ReadonlyMap<string, SessionIndex>): ReadonlyMap<string, SessionIndex> => {
  const next = new Map(indexes)
  next.delete(index.sessionId)
  next.set(index.sessionId, index)
  while (next.size > sessionsKept) next.delete(next.keys().next().value!)
  return next
}

const fromResult = <A, E extends HistoryIssue>(result: Result.Result<A, E>) =>
  Result.isSuccess(result) ? Effect.succeed(result.success) : Effect.fail(result.failure)

/** The sessions' indexes a History keeps, by session id (tests read them for evidence that calls stay incremental). */
export type SessionIndexes = Ref.Ref<ReadonlyMap<string, SessionIndex>>

/** The History room over `indexes`. */
export const layerOver = (indexes: SessionIndexes) => Layer.effect(
  History,
  Effect.gen(function*() {
    const window = yield* Window
    // The index is mutated in place; one call at a time brings it up to date and reads it.
    const lock = yield* Semaphore.make(1)

    /**
     * The index of the session behind the current PiSession, up to date: the
     * entries appended since the last call are folded in, and the branch view
     * follows the Window room's windows of the active branch (it walks the
     * branch, once, and caches it). The windows are read first: PiSession
     * reads Pi's in-memory session synchronously, so every entry they hold is
     * among the entries read after them.
     */
    const syncedIndex = Effect.gen(function*() {
      const session = yield* PiSession
      const spans = yield* window.spans
      const known = (yield* Ref.get(indexes)).get(session.sessionId)
      const index = catchUp(known, session.sessionId, yield* session.entries, spans)
      if (index !== known) yield* Ref.update(indexes, remember(index))
      return index
    })

    const withIndex = <A>(answer: (index: SessionIndex) => A) => lock.withPermits(1)(Effect.map(syncedIndex, answer))

    const windows = withIndex(windowSummaries).pipe(Effect.withSpan("History.windows"))

    const list = Effect.fn("History.list")(function*(query: ListQuery) {
      return yield* fromResult(yield* withIndex((index) => listPage(index, query)))
    })

    const search = Effect.fn("History.search")(function*(query: SearchQuery) {
      const startScan = yield* CurrentScanDeadline
      const engine = yield* engineFor(query.regex)
      return yield* fromResult(yield* withIndex((index) => searchPage(index, query, engine, defaultScanBound, startScan())))
    })

    const read = Effect.fn("History.read")(function*(query: ReadQuery) {
      return yield* fromResult(yield* withIndex((index) => readPage(index, query)))
    })

    // Before the first reset the history tools could read nothing the window does not hold: they are offered
    // from the window a reset opens on, which saves every earlier request their words.
    yield* window.subscribe((event) =>
      event._tag === "WindowOpened" ? PiSession.use((session) => session.offerTools(HistoryToolNames, event.ordinal > 1)) : Effect.void
    )

    return History.of({ windows, list, search, read })
  })
)

export const layerWithoutDependencies = Layer.unwrap(Effect.map(Ref.make<ReadonlyMap<string, SessionIndex>>(new Map()), layerOver))

/** The History room with the Window room it reads the branch's windows from. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(WindowLive.layer))
