import { Cause, Effect, Layer, Option, Random, Ref } from "effect"
import { bootMessage, continuationFor, continuationMessage, inspectTail, resetDrafts } from "../domain/boundary.ts"
import { classifyEntry, isMarkerEntry, userMessageText } from "../domain/entries.ts"
import { projectRequest } from "../domain/projection.ts"
import { CommandName, CustomType } from "../domain/protocol.ts"
import { renderNotice } from "../domain/thresholds.ts"
import {
  boundaryNeeds as decideBoundaryNeeds,
  initialResetControl,
  reduceResetControl,
  type ResetEvent,
  type ResetSource,
  type Transition
} from "../domain/resetControl.ts"
import { newWindowId } from "../domain/windowId.ts"
import { activeWindow, hasMarker } from "../domain/windows.ts"
import { packageVersion } from "../version.ts"
import { Boots } from "../services/Boots.ts"
import { type CurrentWindow, makeWindowView } from "./lifecycle/windowView.ts"
import { Budget } from "../services/Budget.ts"
import { type BootBuildFailed, type BoundaryReply, type GuardVerdict, Lifecycle } from "../services/Lifecycle.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"
import { describeTrace, Trace } from "../services/Trace.ts"

/** Facts when nothing suggests a boundary: off, or a request stopped for its missing boot. */
const noFacts = { replyOverflowed: false, automatic: false, tokensLeft: null, warningLine: 0 } as const

const randomHex8 = Effect.map(Random.nextIntBetween(0, 0x1_0000_0000), (n) => n.toString(16).padStart(8, "0"))

const compactionNotice =
  `pi-context: native compaction is cancelled, because it would summarise erased history back into this window. ` +
  `Run /${CommandName.wipeMemory} to start a fresh window from your notes, or /${CommandName.piContext} off on a branch without resets.`

const resetNotice = (windowId: string) => `pi-context: memory reset · new context window ${windowId}`

const treeNotice =
  "pi-context: the /tree summary was left empty, because a branch on either side contains a context reset and " +
  "a summary would carry erased history across it. Use the history tools to look back instead."

export const layer = Layer.effect(
  Lifecycle,
  Effect.gen(function*() {
    const trace = yield* Trace
    const thresholds = yield* Thresholds
    const budget = yield* Budget
    const boots = yield* Boots
    const control = yield* Ref.make(initialResetControl)
    const { currentWindow, enabled, rememberEnabled, windowOrdinal, windowUsage, requestUsage, latestUsage, rememberReply, forget } =
      yield* makeWindowView(thresholds)
    /** Windows whose missing boot was already reported, so a notice is shown once. */
    const missingBootReported = yield* Ref.make<ReadonlySet<string>>(new Set())
    /** Windows in which the user was told that automatic compaction is cancelled. */
    const compactionNoticeShown = yield* Ref.make<ReadonlySet<string>>(new Set())
    /** A committed boundary whose notice waits until it is durable on the branch. */
    const pendingResetNotice = yield* Ref.make<Option.Option<string>>(Option.none())

    const step = (event: ResetEvent) =>
      Effect.gen(function*() {
        const transition: Transition = yield* Ref.modify(control, (state) => {
          const next = reduceResetControl(state, event)
          return [next, next.state]
        })
        if (transition.effect._tag !== "none") {
          yield* trace.info("reset.transition", {
            on: event._tag,
            effect: transition.effect._tag,
            overflow: transition.state.overflow
          })
        }
        return transition
      })

    const updateStatus = Effect.gen(function*() {
      const session = yield* PiSession
      const on = yield* enabled
      const window = yield* currentWindow
      const ordinal = yield* windowOrdinal(window.id)
      const usage = yield* latestUsage(window)
      yield* session.setStatus(yield* budget.statusLine({ usage, windowOrdinal: ordinal, enabled: on }))
    })

    /** The user's last message in this window, for a reset the model did not ask for. */
    const lastUserMessage = Effect.gen(function*() {
      const tail = yield* (yield* PiSession).branchTail(isMarkerEntry)
      for (let i = tail.length - 1; i >= 0; i--) {
        const text = userMessageText(tail[i]!)
        if (text !== undefined) return text
      }
      return undefined
    })

    /**
     * Reset drafts for a boundary leaving `from`. Interrupted if the turn is
     * aborted meanwhile. An automatic reset carries the user's last message over.
     */
    const buildReset = (from: CurrentWindow, source: ResetSource) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        const windowId = newWindowId(session.sessionId, yield* randomHex8)
        const boot = yield* session.interruptOnAbort(boots.render({ windowId, previousWindowId: from.id }))
        const continuation = continuationFor(source === "tool" ? undefined : yield* lastUserMessage)
        return { windowId, drafts: resetDrafts(windowId, boot, continuation) }
      })

    const emitNotices = Effect.gen(function*() {
      const session = yield* PiSession
      const window = yield* currentWindow
      yield* budget.noticesDue({ windowId: window.id, branch: window.tail })
      const pending = yield* Ref.get(pendingResetNotice)
      if (Option.isSome(pending) && pending.value === window.id && window.tail.some((e) => e._tag === "Continuation")) {
        yield* Ref.set(pendingResetNotice, Option.none())
        yield* session.notify(resetNotice(window.id), "info")
      }
    })

    /** Appends what a marker tail is missing, or refuses with one notice. */
    const repairTail = Effect.gen(function*() {
      const session = yield* PiSession
      const window = yield* currentWindow
      const inspection = inspectTail(window.tail)
      switch (inspection._tag) {
        case "NoMarker":
        case "Complete":
          return
        case "Refuse": {
          yield* trace.info("repair.refused", { windowId: inspection.windowId, reason: inspection.reason })
          yield* session.notify(
            `pi-context: the reset boundary of window ${inspection.windowId} is incomplete and cannot be repaired safely: ` +
              `${inspection.reason}. Run /${CommandName.wipeMemory} to start a fresh window.`,
            "warning"
          )
          return
        }
        case "Repair": {
          const rendered = inspection.missing.includes("boot")
            ? yield* boots.render({ windowId: inspection.windowId, previousWindowId: undefined })
            : undefined
          if (rendered !== undefined) yield* session.sendMessage(bootMessage(inspection.windowId, rendered))
          yield* session.sendMessage(continuationMessage())
          yield* trace.info("repair.appended", { windowId: inspection.windowId, missing: inspection.missing.join(",") })
        }
      }
    })

    /** A root window gets this session's boot, so a fork never keeps its parent's identity. */
    const ensureRootBoot = Effect.gen(function*() {
      const session = yield* PiSession
      const window = yield* currentWindow
      if (!window.isRoot || !(yield* enabled)) return
      if (window.tail.some((entry) => entry._tag === "Boot" && entry.windowId === window.id)) return
      const boot = yield* boots.render({ windowId: window.id, previousWindowId: undefined })
      yield* session.sendMessage(bootMessage(window.id, boot))
      yield* trace.info("boot.root", { windowId: window.id })
    })

    const resetTransient = Effect.gen(function*() {
      yield* step({ _tag: "Cleared" })
      yield* budget.discard
      yield* forget
    })

    const reportBootFailure = (windowId: string, cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        const reason = Cause.pretty(cause).split("\n")[0]
        yield* trace.info("boundary.failed", { windowId, reason })
        yield* session.notify(
          `pi-context: could not build the boot for a new window, so no reset was written (${reason}). ` +
            `Your notes are untouched; try /${CommandName.wipeMemory}.`,
          "error"
        )
      })

    /** Entries that claim to be pi-context's but do not decode are ignored; the user hears of it once. */
    const reportUnreadable = Effect.gen(function*() {
      const session = yield* PiSession
      const unreadable = (yield* session.branch).flatMap((entry) => (entry._tag === "Foreign" && entry.ours ? [entry] : []))
      if (unreadable.length === 0) return
      yield* trace.info("entries.unreadable", { count: unreadable.length, first: unreadable[0]!.reason })
      yield* session.notify(
        `pi-context: ignored ${unreadable.length} of its entries on this branch that could not be read ` +
          `(${unreadable[0]!.reason}${unreadable.length > 1 ? ", …" : ""}). Nothing else is affected; /${CommandName.piContext} doctor has details.`,
        "warning"
      )
    })

    /** Start-up and `/pi-context on` boots: a failure is told, and start-up goes on. */
    const orReportBootFailure = <A, R>(effect: Effect.Effect<A, BootBuildFailed, R>) =>
      Effect.catchTag(effect, "BootBuildFailed", (error) => reportBootFailure(error.windowId, Cause.fail(error)))

    const refreshPolicy = Effect.gen(function*() {
      const session = yield* PiSession
      for (const notice of yield* thresholds.refresh) yield* session.notify(`pi-context: ${renderNotice(notice)}`, "warning")
    })

    const sessionStarted = Effect.fn("Lifecycle.sessionStarted")(function*(reason: string) {
      const session = yield* PiSession
      yield* refreshPolicy
      const policy = yield* thresholds.policy
      yield* trace.open({ sessionId: session.sessionId, agentDir: session.agentDir, level: policy.traceLevel.value })
      yield* resetTransient
      const window = yield* currentWindow
      yield* trace.setWindow(window.id)
      yield* trace.info("session.start", { reason, enabled: yield* enabled })
      yield* reportUnreadable
      yield* boots.inheritForkNotes
      yield* orReportBootFailure(repairTail)
      yield* orReportBootFailure(ensureRootBoot)
      yield* updateStatus
    })

    const treeChanged = Effect.gen(function*() {
      yield* refreshPolicy
      yield* resetTransient
      const window = yield* currentWindow
      yield* trace.setWindow(window.id)
      yield* trace.info("tree.changed", {})
      yield* orReportBootFailure(repairTail)
      yield* updateStatus
    })

    const needsNow = (facts: Omit<Parameters<typeof decideBoundaryNeeds>[0], "control" | "reminderStaged">) =>
      Effect.map(
        Effect.all([Ref.get(control), budget.hasStaged]),
        ([state, reminderStaged]) => decideBoundaryNeeds({ control: state, reminderStaged, ...facts })
      )

    const project = Effect.fnUntraced(function*<M extends { readonly role: string }>(
      messages: ReadonlyArray<M>,
      warning: (text: string, windowId: string) => M
    ) {
      const session = yield* PiSession
      const window = yield* currentWindow
      const projection = projectRequest(messages, window)
      if (projection._tag === "MissingBoot") {
        const reported = yield* Ref.get(missingBootReported)
        if (!reported.has(window.id)) {
          yield* Ref.set(missingBootReported, new Set([...reported, window.id]))
          yield* trace.info("projection.missing-boot", { windowId: window.id })
          yield* session.notify(
            `pi-context: window ${window.id} has no boot, so the request was stopped instead of sending erased history. ` +
              `Run /${CommandName.wipeMemory} to start a fresh window from your notes.`,
            "error"
          )
        }
        yield* session.abort
        return { messages: projection.safeHead, needs: yield* needsNow(noFacts) }
      }
      const projected = projection._tag === "Projected" ? projection.messages : messages
      const changed = projection._tag === "Projected" ? projected : undefined
      if (!(yield* enabled)) return { messages: changed, needs: yield* needsNow(noFacts) }
      const observed = yield* budget.observeRequest({ windowId: window.id, usage: yield* requestUsage(window, projected), branch: window.tail })
      const needs = yield* needsNow({
        replyOverflowed: false,
        automatic: observed.automaticReset,
        tokensLeft: observed.left,
        warningLine: observed.warningLine
      })
      return {
        messages: Option.isSome(observed.warning) ? [...projected, warning(observed.warning.value, window.id)] : changed,
        needs
      }
    })

    const requestWipe = Effect.gen(function*() {
      if (!(yield* enabled)) {
        return {
          scheduled: false,
          text: `pi-context is off, so no reset was scheduled. The user can turn it on with /${CommandName.piContext} on.`
        }
      }
      const window = yield* currentWindow
      const { effect } = yield* step({ _tag: "WipeRequested", windowId: window.id })
      return {
        scheduled: true,
        text: effect._tag === "already-requested"
          ? "A memory wipe is already scheduled for the end of this turn. Nothing more to do."
          : "Memory wipe scheduled: when this turn's tools finish, this context window ends and a fresh one starts from your notes. " +
            "Anything not in your notes will only be reachable through the history tools."
      }
    })

    const boundaryNeeds = (reply?: { readonly overflow: boolean; readonly tokens: number | null }) =>
      Effect.gen(function*() {
        const window = yield* currentWindow
        if (reply?.tokens != null) yield* rememberReply(window, reply.tokens)
        const policy = yield* thresholds.policy
        const usage = yield* latestUsage(window)
        return yield* needsNow({
          replyOverflowed: reply?.overflow === true,
          automatic: (yield* enabled) && policy.automaticReset.value,
          tokensLeft: usage === undefined || usage.tokens === null ? null : usage.contextWindow - usage.tokens,
          warningLine: policy.lines.warning.value
        })
      })

    /**
     * Builds the drafts of a boundary that Pi will commit at this event. An
     * abort interrupts it silently; any other failure is told and writes nothing.
     */
    const commitBoundary = (from: CurrentWindow, source: ResetSource) =>
      Effect.gen(function*() {
        const built = yield* Effect.exit(buildReset(from, source))
        if (built._tag === "Failure") {
          if (Cause.hasInterrupts(built.cause)) {
            yield* trace.info("boundary.interrupted", { windowId: from.id })
            return { _tag: "Interrupted" } as const
          }
          yield* reportBootFailure(from.id, built.cause)
          return { _tag: "Failed" } as const
        }
        yield* Ref.set(pendingResetNotice, Option.some(built.value.windowId))
        yield* trace.info("boundary.commit", { from: from.id, to: built.value.windowId, source })
        return { _tag: "Committed", drafts: built.value.drafts } as const
      })

    const turnEnded = Effect.fn("Lifecycle.turnEnded")(function*(input: Parameters<Lifecycle["Service"]["turnEnded"]>[0]) {
      const window = yield* currentWindow
      const on = yield* enabled
      const policy = yield* thresholds.policy
      const automatic = on && policy.automaticReset.value
      const usage = input.messages === undefined ? yield* windowUsage(window) : yield* requestUsage(window, input.messages)
      const hardLineDue = automatic && input.outcome === "completed" && (yield* budget.hardLineDue({ windowId: window.id, usage }))
      const transition = yield* step({
        _tag: "TurnEnded",
        windowId: window.id,
        outcome: input.outcome,
        overflow: input.overflow,
        hardLineDue,
        automatic
      })
      if (input.outcome === "aborted") {
        yield* budget.discard
        return undefined
      }
      const budgetDrafts = yield* budget.takeDrafts(window.id)
      const keep: BoundaryReply | undefined = budgetDrafts.length > 0
        ? { entries: [...input.incoming, ...budgetDrafts] }
        : undefined
      if (transition.effect._tag !== "commit-boundary") return keep
      const commit = yield* commitBoundary(window, transition.effect.source)
      switch (commit._tag) {
        case "Interrupted":
          return undefined
        case "Failed":
          return keep
        case "Committed":
          return { entries: [...input.incoming, ...budgetDrafts, ...commit.drafts], continue: true }
      }
    })

    const beforeSettle = Effect.fn("Lifecycle.beforeSettle")(function*(input: Parameters<Lifecycle["Service"]["beforeSettle"]>[0]) {
      const on = yield* enabled
      const policy = yield* thresholds.policy
      const transition = yield* step({ _tag: "BeforeSettle", outcome: input.outcome, automatic: on && policy.automaticReset.value })
      yield* budget.discard
      if (transition.effect._tag !== "recover-overflow") return undefined
      const commit = yield* commitBoundary(yield* currentWindow, "overflow")
      return commit._tag === "Committed" ? { entries: [...input.incoming, ...commit.drafts], continue: true } : undefined
    })

    const settled = (aborted: boolean) =>
      Effect.gen(function*() {
        yield* step({ _tag: "Settled" })
        yield* budget.discard
        yield* trace.debug("agent.settled", { aborted })
        yield* emitNotices
        yield* updateStatus
      })

    const wipeNow = Effect.gen(function*() {
      const session = yield* PiSession
      yield* session.waitForIdle
      if (!(yield* enabled)) {
        yield* session.notify(`pi-context is off. Run /${CommandName.piContext} on first, then /${CommandName.wipeMemory}.`, "warning")
        return
      }
      const window = yield* currentWindow
      const built = yield* Effect.exit(buildReset(window, "tool"))
      if (built._tag === "Failure") return yield* reportBootFailure(window.id, built.cause)
      // Public session APIs only: marker, then hidden boot and continuation; no model call.
      for (const draft of built.value.drafts) {
        if (draft.type === "custom") yield* session.appendCustomEntry(draft.customType, draft.data)
        if (draft.type === "custom_message") yield* session.sendMessage(draft)
      }
      yield* resetTransient
      yield* trace.setWindow(built.value.windowId)
      yield* trace.info("boundary.commit", { from: window.id, to: built.value.windowId, source: "command" })
      yield* session.notify(resetNotice(built.value.windowId), "info")
      yield* updateStatus
    })

    const setEnabled = (on: boolean) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        yield* session.appendCustomEntry(CustomType.state, { enabled: on })
        yield* resetTransient
        yield* rememberEnabled(on)
        yield* trace.info("enabled.set", { enabled: on })
        if (on) yield* orReportBootFailure(ensureRootBoot)
        yield* session.notify(
          on
            ? "pi-context is on: context windows reset from your notes instead of compacting."
            : "pi-context is off: no new resets. Existing reset boundaries still hold on this branch.",
          "info"
        )
        yield* updateStatus
      })

    const compactionGuard = (reason: "manual" | "threshold" | "overflow") =>
      Effect.gen(function*() {
        const session = yield* PiSession
        const block = (yield* enabled) || hasMarker(yield* session.branch)
        yield* trace.info("compaction.guard", { reason, verdict: block ? "Block" : "Allow" })
        if (!block) return { _tag: "Allow" } as GuardVerdict
        const window = yield* currentWindow
        const told = yield* Ref.getAndUpdate(compactionNoticeShown, (shown) => new Set([...shown, window.id]))
        const notice = reason === "manual" || !told.has(window.id) ? compactionNotice : undefined
        return { _tag: "Block", notice } as GuardVerdict
      })

    const treeSummaryGuard = (targetId: string, userWantsSummary: boolean) =>
      Effect.gen(function*() {
        if (!userWantsSummary) return { _tag: "Allow" } as GuardVerdict
        const session = yield* PiSession
        const marked = hasMarker(yield* session.branch) || hasMarker((yield* session.rawBranchAt(targetId)).map(classifyEntry))
        yield* trace.info("tree.guard", { marked })
        return marked ? { _tag: "Block", notice: treeNotice } as GuardVerdict : { _tag: "Allow" } as GuardVerdict
      })

    const statusReport = Effect.gen(function*() {
      const session = yield* PiSession
      const window = activeWindow(yield* session.branch, session.sessionId)
      return [
        `pi-context ${packageVersion}: ${(yield* enabled) ? "on" : "off"}`,
        `window: ${window.id} (w${window.ordinal})`,
        describeTrace(yield* trace.status),
        ...(yield* budget.statusReport({ usage: yield* windowUsage(yield* currentWindow) }))
      ].join("\n")
    })

    return Lifecycle.of({
      sessionStarted,
      treeChanged,
      modelChanged: Effect.andThen(refreshPolicy, updateStatus),
      turnStarted: Effect.andThen(emitNotices, updateStatus),
      project,
      requestWipe,
      boundaryNeeds,
      turnEnded,
      beforeSettle,
      settled,
      wipeNow,
      setEnabled,
      compactionGuard,
      treeSummaryGuard,
      statusReport
    })
  })
)
