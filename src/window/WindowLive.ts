import { Clock, Effect, Layer, Option, Random, Ref } from "effect"
import type { ResetSource, WindowFacts, WindowUsage } from "../kernel/facts.ts"
import type { RawEntry } from "../kernel/entries.ts"
import { newWindowId } from "../kernel/windowId.ts"
import { factsOfSpan } from "./windowFacts.ts"
import { branchOfEntries, branchWindows, extendedSpans, opensWindow, type WindowSpan } from "./walk.ts"
import { carriesSystemPrompt, nextRequestTokens } from "./contextMessages.ts"
import { enabledOnBranch } from "./onOff.ts"
import { piView, stillInPiContext } from "./piContext.ts"
import { piFigureHolds, reportedUsage, requestUsage } from "./usage.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import * as ThresholdsLive from "../settings/ThresholdsLive.ts"
import { type CurrentWindow, type NextWindow, Window, type WindowEndReason, type WindowEvent } from "./Window.ts"

/** What a window carries into Pi's context of the system prompt: the entries that carry one, and whether it holds a compaction (Pi's view then starts there). */
interface SpanPrompts {
  readonly systems: ReadonlyArray<RawEntry>
  readonly compacted: boolean
}

const spanPrompts = (span: WindowSpan): SpanPrompts => ({
  systems: span.entries.filter(carriesSystemPrompt),
  compacted: span.entries.some((entry) => entry.type === "compaction")
})

const randomHex8 = Effect.map(Random.nextIntBetween(0, 0x1_0000_0000), (n) => n.toString(16).padStart(8, "0"))

/** A subscriber, run in the publisher's fiber with its Pi session. */
type Handler = (event: WindowEvent) => Effect.Effect<void, never, PiSession>

/** The facts of a window as it ends: what it holds now, and how it ended. */
const endingFacts = (window: CurrentWindow, end: WindowFacts["end"]): WindowFacts => ({ ...factsOfSpan(window), end })

const modelWindow = Effect.map(PiSession.use((session) => session.model), (model) =>
  Option.isSome(model) && model.value.contextWindow > 0 ? model.value.contextWindow : undefined)

export const layerWithoutDependencies = Layer.effect(
  Window,
  Effect.gen(function*() {
    const thresholds = yield* Thresholds
    const measured = yield* Ref.make<{ readonly windowId: string; readonly usage: WindowUsage } | undefined>(undefined)

    /**
     * Every window of the branch, cached by session and leaf. Entries never
     * change once appended, so when the walk back from a new leaf meets the
     * cached leaf, the windows are the cached ones grown by what was walked
     * (the ended ones the same objects): each hook costs the entries appended
     * since the last one, and the whole branch is walked once (at start-up,
     * or after tree navigation to another branch).
     */
    const spanCache = yield* Ref.make<
      | {
        readonly sessionId: string
        readonly leafId: string
        readonly spans: ReadonlyArray<WindowSpan>
        /** What `/pi-context on|off` last set on the branch, kept up as entries are appended. */
        readonly onOff: boolean | undefined
      }
      | undefined
    >(undefined)
    // Keyed by the span object: an ended window keeps its object, so its facts are worked out once.
    const factsBySpan = new WeakMap<WindowSpan, WindowFacts>()
    // The same for what an ended window carries into Pi's context of the system prompt.
    const promptsBySpan = new WeakMap<WindowSpan, SpanPrompts>()
    const promptsOf = (span: WindowSpan): SpanPrompts => {
      const known = promptsBySpan.get(span)
      if (known !== undefined) return known
      const prompts = spanPrompts(span)
      if (span.endedBy !== undefined) promptsBySpan.set(span, prompts)
      return prompts
    }

    const spans = Effect.gen(function*() {
      const session = yield* PiSession
      const cached = yield* Ref.get(spanCache)
      const known = cached?.sessionId === session.sessionId ? cached : undefined
      if (known !== undefined && (yield* session.leafId) === known.leafId) return known.spans
      // Nothing to grow: the whole branch, from the entries in append order (a lookup by id per entry costs more).
      const walked = known === undefined
        ? branchOfEntries(yield* session.entries, yield* session.leafId) ?? (yield* session.rawBranch)
        : yield* session.branchTail((entry) => entry.id === known.leafId)
      const grown = known !== undefined && walked[0]?.id === known.leafId
      const next = grown ? extendedSpans(known.spans, walked.slice(1)) : branchWindows(walked, session.sessionId)
      const onOff = grown ? enabledOnBranch(next, walked.length - 1) ?? known.onOff : enabledOnBranch(next)
      const leaf = walked[walked.length - 1]
      yield* Ref.set(spanCache, leaf === undefined ? undefined : { sessionId: session.sessionId, leafId: leaf.id, spans: next, onOff })
      return next
    })

    /** The window the next request belongs to: the branch's last. */
    const current: Effect.Effect<CurrentWindow, never, PiSession> = Effect.map(spans, (all) => all[all.length - 1]!)

    /** The entries before `window` that carry a system prompt into Pi's view of the branch. */
    const viewedSystems = (window: CurrentWindow) =>
      Effect.map(branchEntries, (branch) => {
        const own = new Set(window.entries.map((entry) => entry.id))
        return piView(branch).filter((entry) => carriesSystemPrompt(entry) && !own.has(entry.id))
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
        // Of what comes before the window, the next request keeps Pi's system prompt: every system message replayed.
        const all = yield* spans
        const earlier = all.slice(0, -1)
        // With no compaction on the branch Pi's view is all of it: each ended window's prompts, read once. Else Pi's view, from the whole branch.
        const systems = all[all.length - 1] === window && !all.some((span) => promptsOf(span).compacted)
          ? earlier.flatMap((span) => promptsOf(span).systems)
          : yield* viewedSystems(window)
        const tokens = nextRequestTokens([...systems, ...window.entries], window)
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

    /** The branch's entries in order, from the cached windows: no second read of the branch. */
    const branchEntries = Effect.map(spans, (all) => all.flatMap((span) => span.entries))

    const windows = Effect.map(spans, (all) =>
      all.map((span) => {
        const known = factsBySpan.get(span)
        if (known !== undefined) return known
        const facts = factsOfSpan(span)
        factsBySpan.set(span, facts)
        return facts
      })).pipe(Effect.withSpan("Window.windows"))

    const handlers = yield* Ref.make<ReadonlyArray<Handler>>([])

    const subscribe = (handler: Handler) =>
      Effect.acquireRelease(Ref.update(handlers, (all) => [...all, handler]), () => Ref.update(handlers, (all) => all.filter((h) => h !== handler)))

    /**
     * Runs every subscriber on `event`, in the order they subscribed, in this
     * fiber and with this event's Pi session: what follows the event sees
     * their effects. A subscriber's defect is its own: the next one still runs.
     */
    const publish = (event: WindowEvent) =>
      Effect.gen(function*() {
        for (const handler of yield* Ref.get(handlers)) yield* Effect.exit(handler(event))
      })

    const nextWindow = (from: CurrentWindow) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        return { id: newWindowId(session.sessionId, yield* randomHex8), ordinal: from.ordinal + 1 } satisfies NextWindow
      })

    const ended = (window: CurrentWindow, reason: WindowEndReason, end: WindowFacts["end"]) =>
      publish({ _tag: "WindowEnded", id: window.id, ordinal: window.ordinal, reason, facts: endingFacts(window, end) })

    const reset = ({ from, to, source }: { readonly from: CurrentWindow; readonly to: NextWindow; readonly source: ResetSource }) =>
      Effect.gen(function*() {
        yield* ended(from, source, { _tag: "Reset", source, at: yield* Clock.currentTimeMillis })
        yield* publish({ _tag: "WindowOpened", id: to.id, ordinal: to.ordinal, reason: source })
      })

    const follow = (reason: "session-start" | "tree") =>
      Effect.gen(function*() {
        const window = yield* current
        yield* publish({ _tag: "WindowOpened", id: window.id, ordinal: window.ordinal, reason })
      })

    const sessionEnding = Effect.flatMap(current, (window) => ended(window, "session-end", { _tag: "Open" }))

    return Window.of({
      current,
      hasReset: Effect.map(current, (window) => !window.isRoot),
      hasResetAt: (id) => Effect.gen(function*() {
        return (yield* (yield* PiSession).rawBranchAt(id)).some(opensWindow)
      }),
      enabled: Effect.gen(function*() {
        yield* spans
        return (yield* Ref.get(spanCache))?.onOff ?? (yield* thresholds.policy).enabled.value
      }),
      unreadable: Effect.map(spans, (all) => all.flatMap((span) => span.tail.flatMap((entry) => (entry._tag === "Foreign" && entry.ours ? [entry] : [])))),
      // Everything before the window's marker was hidden by the reset that wrote it (start-up completes one cut off): the window is enough.
      heldByPi: Effect.map(current, (window) => stillInPiContext(window.entries)),
      usage,
      measureRequest,
      rememberReply,
      windows,
      // Traced where the views and the history ask for every window; `current`, asked many times a hook, is not.
      spans: spans.pipe(Effect.withSpan("Window.spans")),
      forget: Ref.set(measured, undefined),
      nextWindow,
      reset,
      follow,
      sessionEnding,
      subscribe
    })
  })
)

/** The Window room over the policy from Pi's settings files, which decides whether it is on until `/pi-context on|off` says. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(ThresholdsLive.layer))

/** For tests: the Window room over the default policy, kept in the context (shared with the other test layers that read it). */
export const layerTest = layerWithoutDependencies.pipe(Layer.provideMerge(ThresholdsLive.layerTest))
