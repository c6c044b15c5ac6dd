import { Effect, Layer, Option, Ref } from "effect"
import { classifyEntry, isMarkerEntry, type RawEntry } from "../domain/entries.ts"
import { epochMs, windowFacts } from "../domain/window/windowFacts.ts"
import { carriesSystemPrompt, nextRequestTokens } from "../domain/window/contextMessages.ts"
import { piFigureHolds, reportedUsage, requestUsage, type WindowUsage } from "../domain/window/usage.ts"
import { rootWindowId } from "../domain/windowId.ts"
import { PiSession } from "../services/PiSession.ts"
import { type CurrentWindow, Window } from "../services/Window.ts"

/** The w-number of the window a branch's last marker opens: 1 + the markers on the branch. */
const ordinalAtLeaf = (branch: ReadonlyArray<RawEntry>): number => {
  let markers = 0
  for (const entry of branch) if (isMarkerEntry(entry) && classifyEntry(entry)._tag === "Marker") markers++
  return markers + 1
}

const modelWindow = Effect.map(PiSession.use((session) => session.model), (model) =>
  Option.isSome(model) && model.value.contextWindow > 0 ? model.value.contextWindow : undefined)

export const layer = Layer.effect(
  Window,
  Effect.gen(function*() {
    /**
     * The last window found, by session and leaf. Entries never change once
     * appended, so when the walk back from a new leaf meets the cached leaf
     * before any marker, the window is the cached tail plus what was walked:
     * each request then costs the entries appended since the last one, not
     * the window (the loop asks on every request, turn end and status update).
     */
    const cache = yield* Ref.make<{ readonly sessionId: string; readonly leafId: string; readonly window: CurrentWindow } | undefined>(undefined)
    /** W-numbers by window id: counting markers reads the whole branch, so it is done once per window. */
    const ordinals = yield* Ref.make<ReadonlyMap<string, number>>(new Map())
    const measured = yield* Ref.make<{ readonly windowId: string; readonly usage: WindowUsage } | undefined>(undefined)

    const ordinalOf = (sessionId: string, windowId: string) =>
      Effect.gen(function*() {
        const key = `${sessionId}\u0000${windowId}`
        const known = (yield* Ref.get(ordinals)).get(key)
        if (known !== undefined) return known
        const ordinal = ordinalAtLeaf(yield* (yield* PiSession).rawBranch)
        yield* Ref.update(ordinals, (map) => new Map([...map, [key, ordinal]]))
        return ordinal
      })

    const current = Effect.gen(function*() {
      const session = yield* PiSession
      const cached = yield* Ref.get(cache)
      const known = cached?.sessionId === session.sessionId ? cached : undefined
      const walked = yield* session.branchTail((entry) => isMarkerEntry(entry) || entry.id === known?.leafId)
      const leaf = walked[walked.length - 1]
      let window: CurrentWindow
      if (known !== undefined && walked[0]?.id === known.leafId && !isMarkerEntry(walked[0]!)) {
        window = walked.length === 1 ? known.window : { ...known.window, tail: [...known.window.tail, ...walked.slice(1).map(classifyEntry)] }
      } else {
        const tail = walked.map(classifyEntry)
        const first = tail[0]
        const startedAt = first === undefined ? undefined : epochMs(first.timestamp)
        window = first?._tag === "Marker"
          ? { id: first.windowId, ordinal: yield* ordinalOf(session.sessionId, first.windowId), isRoot: false, startedAt, tail }
          : { id: rootWindowId(session.sessionId), ordinal: 1, isRoot: true, startedAt, tail }
      }
      yield* Ref.set(cache, leaf === undefined ? undefined : { sessionId: session.sessionId, leafId: leaf.id, window })
      return window
    })

    /**
     * The window's usage before a request measured it: Pi's own figure where
     * it holds (it costs Pi a walk of the whole session), else the next
     * request estimated from the branch, kept until a request or a reply
     * measures the window.
     */
    const reported = (window: CurrentWindow) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        if (piFigureHolds(window)) return reportedUsage(Option.getOrUndefined(yield* session.contextUsage), window)
        const contextWindow = yield* modelWindow
        if (contextWindow === undefined) return undefined
        const tail = yield* session.branchTail(isMarkerEntry)
        // Of what comes before the marker, the next request keeps only the newest system prompt.
        const entries = tail.some(carriesSystemPrompt) ? tail : yield* session.branchTail(carriesSystemPrompt)
        const tokens = nextRequestTokens(entries, window)
        const usage: WindowUsage = { tokens: tokens ?? null, contextWindow, estimated: true }
        if (tokens !== undefined) yield* Ref.set(measured, { windowId: window.id, usage })
        return usage
      })

    const usage = Effect.gen(function*() {
      const window = yield* current
      const last = yield* Ref.get(measured)
      return last !== undefined && last.windowId === window.id && last.usage.tokens !== null ? last.usage : yield* reported(window)
    })

    /**
     * Pi's `getContextUsage()` gives the same figure (last reply's usage +
     * chars/4 of what follows) but rebuilds the whole session's projection and
     * walks the whole branch on every call: 37 ms per request on a
     * 50,000-entry session (bench/projection.ts), against a request build of
     * about 5 ms. This reads the request itself.
     */
    const measureRequest = (window: CurrentWindow, messages: ReadonlyArray<{ readonly role: string }>) =>
      Effect.gen(function*() {
        const contextWindow = yield* modelWindow
        if (contextWindow === undefined) return undefined
        const usage = requestUsage(messages, window, contextWindow)
        yield* Ref.set(measured, { windowId: window.id, usage })
        return usage
      })

    const rememberReply = (window: CurrentWindow, tokens: number) =>
      Effect.gen(function*() {
        const contextWindow = yield* modelWindow
        if (contextWindow !== undefined) yield* Ref.set(measured, { windowId: window.id, usage: { tokens, contextWindow } })
      })

    const windows = Effect.gen(function*() {
      const session = yield* PiSession
      return windowFacts(yield* session.rawBranch, session.sessionId)
    }).pipe(Effect.withSpan("Window.windows"))

    return Window.of({ current, usage, measureRequest, rememberReply, windows, forget: Ref.set(measured, undefined) })
  })
)
