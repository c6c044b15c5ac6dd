import { Effect, Layer, Option } from "effect"
import { checkWipe, windowActivity, wipeRefusalText } from "../window/checkpoint.ts"
import { projectRequest } from "../window/projection.ts"
import { percentShown, tokensLeft } from "../window/usage.ts"
import { CommandName, CustomType } from "../kernel/protocol.ts"
import { closeOutText, type ReminderDraft } from "../budget/reminders.ts"
import { resumeNotice } from "../window/resetShown.ts"
import { offNotice, onNotice, offPastCompactionNotice } from "../window/onOff.ts"
import { boundaryNeeds as decideBoundaryNeeds } from "./resetControl.ts"
import { type BoundaryWrite, makeBoundaries } from "./boundaries.ts"
import type { BoundaryDraft } from "./boundary.ts"
import { makeResetControl } from "./control.ts"
import { makeCommandWipe } from "./commandWipe.ts"
import { makeStartup } from "./startup.ts"
import { inheritForkNotes } from "../notes/forkNotes.ts"
import * as BootsLive from "../boot/BootsLive.ts"
import * as BudgetLive from "../budget/BudgetLive.ts"
import * as NotesHomesLive from "../notes/NotesHomesLive.ts"
import * as NotesStoreLive from "../notes/NotesStoreLive.ts"
import * as ThresholdsLive from "../settings/ThresholdsLive.ts"
import * as TraceLive from "../trace/TraceLive.ts"
import * as WindowLive from "../window/WindowLive.ts"
import { Budget } from "../budget/Budget.ts"
import {
  type BoundaryNeeds,
  type BoundaryOutcome,
  type BoundaryInput,
  type BoundaryReply,
  Lifecycle,
  type ProjectReply,
  type ReplyFacts,
  type WipeReply
} from "./Lifecycle.ts"
import { NotesHomes } from "../notes/NotesHomes.ts"
import { NotesStore } from "../notes/NotesStore.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { Trace } from "../trace/Trace.ts"
import { Window } from "../window/Window.ts"
import { missingBootNotice } from "./resetView.ts"

/**
 * How a boundary built at one of Pi's hooks reaches the branch: written by
 * the hook, after the drafts that go `before` it, when Pi's session manager
 * takes writes and no other extension put drafts on this boundary (they stay
 * Pi's to commit, before pi-context's); otherwise returned to Pi, which
 * commits it when the hook returns.
 */
const hookWrite = (incoming: ReadonlyArray<unknown>, before: ReadonlyArray<BoundaryDraft>) =>
  Effect.gen(function*() {
    const session = yield* PiSession
    return (session.writesInHook === true && incoming.length === 0 ? { _tag: "WrittenInHook", before } : { _tag: "ReturnedToPi" }) satisfies BoundaryWrite
  })

/** Facts when nothing suggests a boundary: off, or a request stopped for its missing boot. */
const noFacts = { replyOverflowed: false, automatic: false, tokensLeft: null, warningLine: 0 } as const

export const layerWithoutDependencies = Layer.effect(
  Lifecycle,
  Effect.gen(function*() {
    const trace = yield* Trace
    const thresholds = yield* Thresholds
    const budget = yield* Budget
    const notes = yield* NotesStore
    const homes = yield* NotesHomes
    const windows = yield* Window
    const currentWindow = windows.current
    const enabled = windows.enabled
    const boundaries = yield* makeBoundaries
    const resetControl = yield* makeResetControl
    const { step, updateStatus, resetTransient } = resetControl
    const startup = yield* makeStartup(boundaries)
    /** Windows whose missing boot was already reported, so a notice is shown once. */
    const missingBootReported = new Set<string>()

    /** Windows told, while off, that they passed the point where Pi would have compacted. */
    const toldPastCompaction = new Set<string>()
    const emitNotices = Effect.gen(function*() {
      yield* budget.noticesDue
      const window = yield* currentWindow
      yield* boundaries.resetNoticeDue(window)
      if (yield* enabled) return
      const session = yield* PiSession
      if (toldPastCompaction.has(window.id)) return
      const usage = yield* windows.usage
      const notice = offPastCompactionNotice(tokensLeft(usage), (yield* thresholds.policy).reserve.value, percentShown(usage))
      // The branch is walked only once the window is that full: an unmarked branch is Pi's compaction's to manage.
      if (notice === undefined || !(yield* windows.hasReset)) return
      toldPastCompaction.add(window.id)
      yield* session.notify(notice, "warning")
    })

    const commandWipe = yield* makeCommandWipe(boundaries, resetControl)

    const sessionStarted = Effect.fn("Lifecycle.sessionStarted")(function*(reason: string) {
      const session = yield* PiSession
      yield* thresholds.refresh
      const policy = yield* thresholds.policy
      yield* trace.open({ sessionId: session.sessionId, agentDir: session.agentDir, level: policy.traceLevel.value })
      yield* resetTransient
      yield* windows.follow("session-start")
      const window = yield* currentWindow
      yield* trace.info("session.start", { reason, enabled: yield* enabled })
      yield* startup.reportUnreadable
      yield* inheritForkNotes().pipe(Effect.provideService(NotesStore, notes), Effect.provideService(NotesHomes, homes), Effect.provideService(Trace, trace))
      yield* startup.orReportBootFailure(startup.repairTail)
      yield* startup.orReportBootFailure(startup.ensureRootBoot)
      yield* updateStatus
      // On resume, a branch with resets says so: they were not compactions (on older sessions Pi also says "Session compacted N times").
      if (!window.isRoot) yield* session.notify(resumeNotice(window.ordinal), "info")
      return yield* boundaryNeeds()
    })

    const treeChanged = Effect.gen(function*() {
      yield* thresholds.refresh
      yield* resetTransient
      yield* windows.follow("tree")
      yield* trace.info("tree.changed", {})
      yield* startup.orReportBootFailure(startup.repairTail)
      yield* updateStatus
    })

    const needsNow = (facts: Omit<Parameters<typeof decideBoundaryNeeds>[0], "control" | "reminderStaged">) =>
      Effect.map(
        Effect.all([resetControl.state, budget.hasStaged]),
        ([state, reminderStaged]) => decideBoundaryNeeds({ control: state, reminderStaged, ...facts })
      )

    const project = Effect.fnUntraced(function*<M extends { readonly role: string }>(messages: ReadonlyArray<M>) {
      const session = yield* PiSession
      const window = yield* currentWindow
      const reply = (
        messages: ReadonlyArray<M> | undefined,
        needs: BoundaryNeeds,
        reminders: ReadonlyArray<ReminderDraft> = [],
        closeOut = Option.none<string>()
      ): ProjectReply<M> => ({
        messages,
        reminders,
        closeOut,
        windowId: window.id,
        needs
      })
      const projection = projectRequest(messages, window)
      if (projection._tag === "MissingBoot") {
        if (!missingBootReported.has(window.id)) {
          missingBootReported.add(window.id)
          yield* trace.info("projection.missing-boot", { windowId: window.id })
          yield* session.notify(missingBootNotice(window.ordinal), "error")
        }
        yield* session.abort
        return reply(projection.safeHead, yield* needsNow(noFacts))
      }
      const projected = projection._tag === "Projected" ? projection.messages : messages
      const changed = projection._tag === "Projected" ? projected : undefined
      if (!(yield* enabled)) return reply(changed, yield* needsNow(noFacts))
      const observed = yield* budget.observeRequest(projected)
      const { lines, automaticReset } = yield* thresholds.policy
      const closeOut = (yield* step({ _tag: "RequestBuilt", windowId: window.id })).effect._tag === "carry-close-out"
        ? Option.some(closeOutText(lines.hard.value))
        : Option.none<string>()
      for (const kind of observed.staged) {
        yield* trace.info("budget.reminder", {
          kind,
          reason: `${kind === "guidance" ? "guidance" : "warning"} line crossed`,
          left: observed.left,
          line: kind === "guidance" ? lines.guidance.value : lines.warning.value
        })
      }
      if (Option.isSome(closeOut)) yield* trace.info("budget.close-out", { reason: "a tool turn crossed the hard line", left: observed.left, line: lines.hard.value })
      const needs = yield* needsNow({
        replyOverflowed: false,
        automatic: automaticReset.value,
        tokensLeft: observed.left,
        warningLine: lines.warning.value
      })
      return reply(changed, needs, observed.reminders, closeOut)
    })

    const requestWipe = Effect.gen(function*() {
      if (!(yield* enabled)) {
        return {
          scheduled: false,
          refused: false,
          text: `pi-context is off, so no reset was scheduled. The user can end this window with /${CommandName.wipeMemory}, ` +
            `or turn pi-context on with /${CommandName.piContext} on.`
        } satisfies WipeReply
      }
      const window = yield* currentWindow
      const policy = yield* thresholds.policy
      const activity = windowActivity(window.entries)
      const check = checkWipe({ checkEnabled: policy.checkpointCheck.value, activity })
      yield* trace.info("wipe.check", { verdict: check._tag, reason: check.reason })
      if (check._tag === "Refuse") return { scheduled: false, refused: true, text: wipeRefusalText } satisfies WipeReply
      const { effect } = yield* step({ _tag: "WipeRequested", windowId: window.id })
      return {
        scheduled: true,
        refused: false,
        text: effect._tag === "already-requested"
          ? "A memory wipe is already scheduled for the end of this turn. Nothing more to do."
          : "Memory wipe scheduled: when this turn's tools finish, this context window ends and a fresh one starts from your notes. " +
            "Anything not in your notes will only be reachable through the history tools."
      } satisfies WipeReply
    })

    /** Whether pi-context may reset by itself now: on, and automaticReset set. */
    const automaticNow = Effect.gen(function*() {
      return (yield* enabled) && (yield* thresholds.policy).automaticReset.value
    })

    const boundaryNeeds = (reply?: ReplyFacts) =>
      Effect.gen(function*() {
        const window = yield* currentWindow
        if (reply?.tokens != null) yield* windows.rememberReply(window, reply.tokens)
        return yield* needsNow({
          replyOverflowed: reply?.overflow === true,
          automatic: yield* automaticNow,
          tokensLeft: tokensLeft(yield* windows.usage),
          warningLine: (yield* thresholds.policy).lines.warning.value
        })
      })

    /** A boundary hook's reply with the boundary hooks needed after it, in the same run. */
    const withNeeds = <R>(reply: Effect.Effect<BoundaryReply | undefined, never, R>) =>
      Effect.gen(function*() {
        const boundary = yield* reply
        return { reply: boundary, needs: yield* boundaryNeeds() } satisfies BoundaryOutcome
      })

    const turnReply = Effect.fn("Lifecycle.turnEnded")(function*(input: BoundaryInput) {
      const window = yield* currentWindow
      const automatic = yield* automaticNow
      const hardLine = yield* budget.hardLine(input.messages)
      const hardLineDue = automatic && input.outcome === "completed" && hardLine.due
      if (hardLineDue) {
        yield* trace.info("budget.hard-line", { reason: "the turn ended past the hard line", left: hardLine.left, line: hardLine.line, toolTurn: input.toolTurn === true })
      }
      const transition = yield* step({
        _tag: "TurnEnded",
        windowId: window.id,
        outcome: input.outcome,
        overflow: input.overflow,
        hardLineDue,
        automatic,
        toolTurn: input.toolTurn === true,
        nextQueued: input.queued ?? []
      })
      if (input.outcome === "aborted") {
        yield* budget.discard
        return undefined
      }
      const budgetDrafts = yield* budget.takeDrafts
      const keep: BoundaryReply | undefined = budgetDrafts.length > 0
        ? { entries: [...input.incoming, ...budgetDrafts] }
        : undefined
      const effect = transition.effect
      if (effect._tag !== "commit-boundary") return keep
      const write = yield* hookWrite(input.incoming, budgetDrafts)
      const commit = yield* boundaries.commit(window, effect.source, effect.reason, write, budgetDrafts)
      switch (commit._tag) {
        case "Interrupted":
        case "Busy":
          return undefined
        case "Failed":
          return keep
        case "Committed":
          return {
            entries: write._tag === "WrittenInHook" ? [] : [...input.incoming, ...budgetDrafts, ...commit.drafts],
            ...(effect.continue ? { continue: true } : {})
          }
      }
    })

    const settleReply = Effect.fn("Lifecycle.beforeSettle")(function*(input: BoundaryInput) {
      const window = yield* currentWindow
      const transition = yield* step({ _tag: "BeforeSettle", windowId: window.id, outcome: input.outcome, automatic: yield* automaticNow })
      yield* budget.discard
      const effect = transition.effect
      if (effect._tag !== "recover-overflow" && effect._tag !== "commit-boundary") return undefined
      const write = yield* hookWrite(input.incoming, [])
      const commit = yield* boundaries.commit(window, effect._tag === "recover-overflow" ? "overflow" : effect.source, effect.reason, write)
      if (commit._tag !== "Committed") return undefined
      const resume = effect._tag === "recover-overflow" || effect.continue
      return { entries: write._tag === "WrittenInHook" ? [] : [...input.incoming, ...commit.drafts], ...(resume ? { continue: true } : {}) }
    })

    const settled = (aborted: boolean) =>
      Effect.gen(function*() {
        const window = yield* currentWindow
        const transition = yield* step({ _tag: "Settled", windowId: window.id })
        yield* budget.discard
        yield* trace.debug("agent.settled", { aborted })
        yield* emitNotices
        // Pi is idle while it announces settlement and holds new prompts until every handler is done.
        if (transition.effect._tag === "append-command-boundary") yield* commandWipe.appendWhenIdle(transition.effect.reason)
        yield* updateStatus
        return yield* boundaryNeeds()
      })

    // Off stops the automatic resets only: the user's own reset still works (on a branch with resets, it is the only one).
    const wipeNow = commandWipe.appendWhenIdle(undefined)

    const setEnabled = (on: boolean) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        yield* session.appendCustomEntry(CustomType.state, { enabled: on })
        yield* resetTransient
        yield* budget.discard
        yield* trace.info("enabled.set", { enabled: on })
        if (on) yield* startup.orReportBootFailure(startup.ensureRootBoot)
        // Turned on in a window that grew past its hard line while off: it ends now, while idle, rather than at the
        // next prompt's overflow (sent at 117%, then labelled an overflow though the provider had answered).
        const past = on && (yield* session.isIdle) ? yield* budget.hardLine(undefined) : undefined
        yield* session.notify(on ? onNotice(past?.due === true) : offNotice(yield* windows.hasReset), "info")
        if (past?.due === true) yield* commandWipe.appendWhenIdle("turned on past the hard line", "hard-line")
        yield* updateStatus
      })

    return Lifecycle.of({
      sessionStarted,
      treeChanged,
      modelChanged: Effect.andThen(thresholds.refresh, updateStatus),
      turnStarted: Effect.andThen(emitNotices, updateStatus),
      runStarting: Effect.andThen(startup.orReportBootFailure(startup.refreshRootBoot), boundaryNeeds()),
      project,
      requestWipe,
      boundaryNeeds,
      turnEnded: (input) => withNeeds(turnReply(input)),
      beforeSettle: (input) => withNeeds(settleReply(input)),
      settled,
      wipeNow,
      setEnabled
    })
  })
)

/** The lifecycle with every service it orchestrates. */
export const layer = layerWithoutDependencies.pipe(
  Layer.provide(Layer.mergeAll(BootsLive.layer, BudgetLive.layer, NotesHomesLive.layer, NotesStoreLive.layer, ThresholdsLive.layer, TraceLive.layer, WindowLive.layer))
)

/**
 * For tests: the lifecycle over the test layers of what it orchestrates (one
 * policy, one trace and one window room, shared: layers are built once per
 * reference), with the notes store the test gives, all kept in the context.
 */
export const layerTestWith = (notes: Layer.Layer<NotesStore>) =>
  layerWithoutDependencies.pipe(
    Layer.provideMerge(Layer.mergeAll(BootsLive.layerTest, BudgetLive.layerTest, WindowLive.layerTest)),
    Layer.provideMerge(notes)
  )
