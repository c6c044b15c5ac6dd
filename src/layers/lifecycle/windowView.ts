import { Effect, Option, Ref } from "effect"
import { type BranchEntry, classifyEntry, isMarkerEntry } from "../../domain/entries.ts"
import type { WindowUsage } from "../../domain/budget.ts"
import { estimateRequestTokens } from "../../domain/projection.ts"
import { rootWindowId } from "../../domain/windowId.ts"
import { activeWindow, isEnabled } from "../../domain/windows.ts"
import { PiSession } from "../../services/PiSession.ts"
import type { Thresholds } from "../../services/Thresholds.ts"

/** The window the next request belongs to, found by walking back to the last marker. */
export interface CurrentWindow {
  readonly id: string
  readonly isRoot: boolean
  /** The branch from the window's marker (or the root) to the leaf, classified. */
  readonly tail: ReadonlyArray<BranchEntry>
}

/**
 * The lifecycle's view of the active branch: the current window, whether
 * pi-context is on, the window's ordinal and usage. Each is cached per
 * extension instance, since the loop asks before every request and at every
 * turn end; `forget` drops the caches when the branch may have changed.
 */
export const makeWindowView = (thresholds: Thresholds["Service"]) =>
  Effect.gen(function*() {
    /** Whether new resets may start; the last `pi-context/state` entry, cached per branch. */
    const enabledCache = yield* Ref.make<Option.Option<boolean>>(Option.none())
    const ordinalCache = yield* Ref.make<{ readonly windowId: string; readonly ordinal: number } | undefined>(undefined)
    const lastUsage = yield* Ref.make<{ readonly windowId: string; readonly usage: WindowUsage } | undefined>(undefined)
    /**
     * The last window found, by session and leaf. Entries never change once
     * appended, so when the walk back from a new leaf meets the cached leaf
     * before any marker, the window is the cached tail plus what was walked:
     * each request then costs the entries appended since the last one, not
     * the window (the loop asks on every request, turn end and status update).
     */
    const windowCache = yield* Ref.make<{ readonly sessionId: string; readonly leafId: string; readonly window: CurrentWindow } | undefined>(undefined)

    const currentWindow = Effect.gen(function*() {
      const session = yield* PiSession
      const cached = yield* Ref.get(windowCache)
      const known = cached?.sessionId === session.sessionId ? cached : undefined
      const walked = yield* session.branchTail((entry) => isMarkerEntry(entry) || entry.id === known?.leafId)
      const leaf = walked[walked.length - 1]
      let window: CurrentWindow
      if (known !== undefined && walked[0]?.id === known.leafId && !isMarkerEntry(walked[0]!)) {
        window = walked.length === 1 ? known.window : { ...known.window, tail: [...known.window.tail, ...walked.slice(1).map(classifyEntry)] }
      } else {
        const tail = walked.map(classifyEntry)
        const first = tail[0]
        window = first?._tag === "Marker"
          ? { id: first.windowId, isRoot: false, tail }
          : { id: rootWindowId(session.sessionId), isRoot: true, tail }
      }
      yield* Ref.set(windowCache, leaf === undefined ? undefined : { sessionId: session.sessionId, leafId: leaf.id, window })
      return window
    })

    const enabled = Effect.gen(function*() {
      const cached = yield* Ref.get(enabledCache)
      if (Option.isSome(cached)) return cached.value
      const session = yield* PiSession
      const policy = yield* thresholds.policy
      const value = isEnabled(yield* session.branch, policy.enabled.value)
      yield* Ref.set(enabledCache, Option.some(value))
      return value
    })

    /**
     * Pi's usage, unless the window has no reply yet: then Pi's figure still
     * counts the previous window (after `/wipe-memory`, which cannot compact),
     * so the usage is unknown until the first reply in the new window.
     */
    const windowUsage = (window: CurrentWindow) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        const usage = Option.getOrUndefined(yield* session.contextUsage)
        if (usage === undefined || window.isRoot) return usage
        const answered = window.tail.some((entry) => entry._tag === "Message" && entry.role === "assistant")
        return answered ? usage : { ...usage, tokens: null, percent: null }
      })

    /**
     * The window's position on the branch (w1 = root). Counting markers reads
     * the whole branch, so it is done once per window, not once per turn.
     */
    const windowOrdinal = (windowId: string) =>
      Effect.gen(function*() {
        const cached = yield* Ref.get(ordinalCache)
        if (cached !== undefined && cached.windowId === windowId) return cached.ordinal
        const session = yield* PiSession
        const { ordinal } = activeWindow(yield* session.branch, session.sessionId)
        yield* Ref.set(ordinalCache, { windowId, ordinal })
        return ordinal
      })

    /**
     * The window's usage for the budget, from the request being built. Pi's
     * `getContextUsage()` gives the same figure (last reply's usage + chars/4 of
     * what follows) but rebuilds the whole session's projection and walks the
     * whole branch on every call: 37 ms per request on a 50,000-entry session
     * (bench/projection.ts), against a request build of about 5 ms. Like
     * `windowUsage`, a reset window with no reply yet has unknown usage.
     */
    const requestUsage = (window: CurrentWindow, messages: ReadonlyArray<{ readonly role: string }>) =>
      Effect.gen(function*() {
        const model = Option.getOrUndefined(yield* (yield* PiSession).model)
        if (model === undefined || !(model.contextWindow > 0)) return undefined
        const estimate = estimateRequestTokens(messages)
        const known = estimate._tag === "Measured" || (window.isRoot && !estimate.compacted)
        const usage = { tokens: known ? estimate.tokens : null, contextWindow: model.contextWindow }
        yield* Ref.set(lastUsage, { windowId: window.id, usage })
        return usage
      })

    /**
     * The window's usage as last measured from a request or a turn's context,
     * else Pi's figure: the status line asks at every turn start and settlement,
     * and Pi's figure costs a walk of the whole session.
     */
    const latestUsage = (window: CurrentWindow) =>
      Effect.gen(function*() {
        const last = yield* Ref.get(lastUsage)
        return last !== undefined && last.windowId === window.id && last.usage.tokens !== null ? last.usage : yield* windowUsage(window)
      })

    /** A reply's provider-reported tokens: the window's usage as the provider saw it. */
    const rememberReply = (window: CurrentWindow, tokens: number) =>
      Effect.gen(function*() {
        const model = Option.getOrUndefined(yield* (yield* PiSession).model)
        if (model === undefined || !(model.contextWindow > 0)) return
        yield* Ref.set(lastUsage, { windowId: window.id, usage: { tokens, contextWindow: model.contextWindow } })
      })

    return {
      currentWindow,
      enabled,
      rememberEnabled: (on: boolean) => Ref.set(enabledCache, Option.some(on)),
      windowOrdinal,
      windowUsage,
      requestUsage,
      latestUsage,
      rememberReply,
      forget: Effect.all([Ref.set(enabledCache, Option.none()), Ref.set(ordinalCache, undefined), Ref.set(lastUsage, undefined)], { discard: true })
    }
  })
