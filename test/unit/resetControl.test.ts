import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  boundaryNeeds,
  type CloseOutAxis,
  initialResetControl,
  type OverflowAxis,
  reduceResetControl,
  type RequestAxis,
  type ResetControl,
  type ResetEvent,
  type TurnOutcome,
  type WaitingCommand
} from "../../src/reset/resetControl.ts"

const W = "pcx:w:1"
const W2 = "pcx:w:2"
const noRequest: RequestAxis = { _tag: "NoRequest" }
const requested: RequestAxis = { _tag: "Requested", windowId: W }
const overflows: ReadonlyArray<OverflowAxis> = ["idle", "pending", "pending-spent", "spent"]
const closeOuts: ReadonlyArray<CloseOutAxis> = [
  { _tag: "None" },
  { _tag: "Due", windowId: W },
  { _tag: "Sent", windowId: W },
  { _tag: "Sent", windowId: W2 }
]
/** A /wipe-memory that arrived at t=100 during a run, with or without messages queued before it. */
const waitingIn = (windowId: string, queuedBefore: boolean): WaitingCommand => ({ windowId, at: 100, queuedBefore })
const commands: ReadonlyArray<WaitingCommand | undefined> = [undefined, waitingIn(W, false), waitingIn(W, true), waitingIn(W2, false)]
const states: ReadonlyArray<ResetControl> = [noRequest, requested].flatMap((request) =>
  overflows.flatMap((overflow) =>
    closeOuts.flatMap((closeOut) =>
      [undefined, W].flatMap((closeOutUsed) =>
        commands.map((commandWipe): ResetControl => ({ request, overflow, closeOut, closeOutUsed, commandWipe }))
      )
    )
  )
)
const outcomes: ReadonlyArray<TurnOutcome> = ["completed", "aborted", "error"]
const bools = [false, true] as const

const turnEnded = (fields: Partial<Extract<ResetEvent, { _tag: "TurnEnded" }>> = {}): ResetEvent => ({
  _tag: "TurnEnded",
  windowId: W,
  outcome: "completed",
  overflow: false,
  hardLineDue: false,
  automatic: true,
  toolTurn: true,
  nextQueued: [],
  ...fields
})

/** Every event shape, with each boolean and outcome varied. */
const events: ReadonlyArray<ResetEvent> = [
  { _tag: "WipeRequested", windowId: W },
  { _tag: "WipeRequested", windowId: W2 },
  ...outcomes.flatMap((outcome) =>
    bools.flatMap((overflow) =>
      bools.flatMap((hardLineDue) =>
        bools.flatMap((automatic) =>
          bools.flatMap((toolTurn) =>
            // Nothing queued, a message queued before the command (t=50), one queued after it (t=150).
            [[], [50], [150]].map((nextQueued) => turnEnded({ outcome, overflow, hardLineDue, automatic, toolTurn, nextQueued }))
          )
        )
      )
    )
  ),
  { _tag: "RequestBuilt", windowId: W },
  ...outcomes.flatMap((outcome) => bools.map((automatic): ResetEvent => ({ _tag: "BeforeSettle", windowId: W, outcome, automatic }))),
  { _tag: "Settled", windowId: W },
  { _tag: "CommandWipe", windowId: W, idle: true },
  { _tag: "CommandWipe", windowId: W, idle: false, at: 100, queuedBefore: false },
  { _tag: "CommandWipe", windowId: W, idle: false, at: 100, queuedBefore: true },
  { _tag: "Cleared" }
]

const none: CloseOutAxis = { _tag: "None" }

/** The expected transition, stated rule by rule as in the lifecycle spec (docs/resets.md). */
const expected = (state: ResetControl, event: ResetEvent): { effect: string; source?: string; continue?: boolean; state: ResetControl } => {
  const closingOut = state.closeOut._tag !== "None" && state.closeOut.windowId === W
  switch (event._tag) {
    case "WipeRequested":
      return state.request._tag === "Requested" && state.request.windowId === event.windowId
        ? { effect: "already-requested", state }
        : { effect: "requested", state: { ...state, request: { _tag: "Requested", windowId: event.windowId } } }
    case "TurnEnded": {
      if (event.outcome === "aborted") return { effect: "none", state: { ...state, request: noRequest, closeOut: none } }
      if (event.outcome === "error" || event.overflow) {
        const next: OverflowAxis = !(event.overflow && event.automatic)
          ? state.overflow
          : state.overflow === "idle" || state.overflow === "pending"
          ? "pending"
          : "pending-spent"
        return { effect: "none", state: { ...state, request: noRequest, overflow: next } }
      }
      const after: ResetControl = { ...state, request: noRequest, overflow: "idle", closeOut: none }
      const commit = (source: string) => ({ effect: "commit-boundary", source, continue: event.toolTurn, state: after })
      if (state.request._tag === "Requested") return commit("tool")
      // The user's waiting /wipe-memory goes before a message they queued after it, when the run would end.
      const command = state.commandWipe
      const queuedAfter = event.nextQueued.length > 0 && (command?.queuedBefore === false || event.nextQueued.every((at) => at > 100))
      if (command?.windowId === W && !event.toolTurn && queuedAfter) {
        return { effect: "commit-boundary", source: "command", continue: false, state: { ...after, commandWipe: undefined } }
      }
      if (state.closeOut._tag === "Sent" && state.closeOut.windowId === W && event.automatic) return commit("close-out")
      if (!event.hardLineDue || !event.automatic) return { effect: "none", state: after }
      // A finished reply resets without a model call; a tool turn gets one close-out per window.
      if (!event.toolTurn || state.closeOutUsed === W) return commit("hard-line")
      return { effect: "close-out-due", state: { ...after, closeOut: { _tag: "Due", windowId: W } } }
    }
    case "RequestBuilt":
      return closingOut
        ? { effect: "carry-close-out", state: { ...state, closeOut: { _tag: "Sent", windowId: W }, closeOutUsed: W } }
        : { effect: "none", state }
    case "BeforeSettle": {
      const cleared = { ...state, request: noRequest, closeOut: none }
      if (event.outcome === "aborted") return { effect: "none", state: cleared }
      if (state.overflow === "pending" && event.automatic) return { effect: "recover-overflow", state: { ...cleared, overflow: "spent" } }
      if (state.overflow === "pending" || state.overflow === "pending-spent") return { effect: "none", state: { ...cleared, overflow: "spent" } }
      if (closingOut && event.automatic) return { effect: "commit-boundary", source: "close-out", continue: false, state: cleared }
      return { effect: "none", state: cleared }
    }
    case "Settled":
      return {
        effect: state.commandWipe?.windowId === W ? "append-command-boundary" : "none",
        state: { ...initialResetControl, closeOutUsed: state.closeOutUsed }
      }
    case "CommandWipe":
      return event.idle
        ? { effect: "append-command-boundary", state: { ...state, commandWipe: undefined } }
        : { effect: "command-waits", state: { ...state, commandWipe: waitingIn(W, event.queuedBefore) } }
    case "Cleared":
      return { effect: "none", state: initialResetControl }
  }
}

describe("reset-control reducer", () => {
  it(`defines every state × event pair (${states.length} states × ${events.length} events)`, () => {
    for (const state of states) {
      for (const event of events) {
        const actual = reduceResetControl(state, event)
        const want = expected(state, event)
        const got = {
          effect: actual.effect._tag,
          ...(actual.effect._tag === "commit-boundary" ? { source: actual.effect.source, continue: actual.effect.continue } : {}),
          state: actual.state
        }
        assert.deepStrictEqual(got, want, `${JSON.stringify(state)} × ${JSON.stringify(event)}`)
        // Every decision the lifecycle acts on says why.
        if (actual.effect._tag !== "none") assert.isString(actual.effect.reason)
      }
    }
  })

  it("names the source of a commit: the model's request wins over the hard line", () => {
    const both = reduceResetControl({ ...initialResetControl, request: requested }, turnEnded({ hardLineDue: true }))
    assert.deepInclude(both.effect, { _tag: "commit-boundary", source: "tool", continue: true })
    const reply = reduceResetControl(initialResetControl, turnEnded({ hardLineDue: true, toolTurn: false }))
    assert.deepInclude(reply.effect, { _tag: "commit-boundary", source: "hard-line", continue: false })
  })

  it("a tool turn past the hard line gets one close-out; its turn ends in the boundary, whatever the model did", () => {
    const due = reduceResetControl(initialResetControl, turnEnded({ hardLineDue: true }))
    assert.strictEqual(due.effect._tag, "close-out-due")
    const sent = reduceResetControl(due.state, { _tag: "RequestBuilt", windowId: W })
    assert.strictEqual(sent.effect._tag, "carry-close-out")
    const ignored = reduceResetControl(sent.state, turnEnded({ hardLineDue: true }))
    assert.deepInclude(ignored.effect, { _tag: "commit-boundary", source: "close-out", continue: true })
    const obeyed = reduceResetControl(reduceResetControl(sent.state, { _tag: "WipeRequested", windowId: W }).state, turnEnded({ hardLineDue: true }))
    assert.deepInclude(obeyed.effect, { _tag: "commit-boundary", source: "tool" })
    // If that boundary could not be written, the window has spent its close-out: the hard line resets directly.
    const again = reduceResetControl(reduceResetControl(ignored.state, { _tag: "Settled", windowId: W }).state, turnEnded({ hardLineDue: true }))
    assert.deepInclude(again.effect, { _tag: "commit-boundary", source: "hard-line" })
  })

  it("drops a request made in an older window instead of resetting the new one", () => {
    const stale = reduceResetControl({ ...initialResetControl, request: requested }, turnEnded({ windowId: W2 }))
    assert.strictEqual(stale.effect._tag, "none")
    assert.deepStrictEqual(stale.state.request, noRequest)
  })

  it("/wipe-memory on a busy session waits for settlement, unless the run already reset that window", () => {
    const waiting = reduceResetControl(initialResetControl, { _tag: "CommandWipe", windowId: W, idle: false, at: 100, queuedBefore: false })
    assert.strictEqual(waiting.effect._tag, "command-waits")
    assert.strictEqual(reduceResetControl(waiting.state, { _tag: "Settled", windowId: W }).effect._tag, "append-command-boundary")
    const moved = reduceResetControl(waiting.state, { _tag: "Settled", windowId: W2 })
    assert.strictEqual(moved.effect._tag, "none")
    assert.isString(moved.effect.reason)
  })

  it("a waiting /wipe-memory resets before a follow-up queued after it, and after one queued before it", () => {
    const wait = (queuedBefore: boolean) =>
      reduceResetControl(initialResetControl, { _tag: "CommandWipe", windowId: W, idle: false, at: 100, queuedBefore }).state
    // Nothing was queued at the command: whatever is queued now came after it.
    const after = reduceResetControl(wait(false), turnEnded({ toolTurn: false, nextQueued: [100] }))
    assert.deepInclude(after.effect, { _tag: "commit-boundary", source: "command", continue: false })
    assert.isUndefined(after.state.commandWipe)
    // A follow-up asked before the command runs first, in the old window; the one after it waits for the reset.
    const before = reduceResetControl(wait(true), turnEnded({ toolTurn: false, nextQueued: [90] }))
    assert.strictEqual(before.effect._tag, "none")
    const next = reduceResetControl(before.state, turnEnded({ toolTurn: false, nextQueued: [110] }))
    assert.deepInclude(next.effect, { _tag: "commit-boundary", source: "command" })
    // A tool turn goes on in the same run: the reset waits for the run's end.
    assert.strictEqual(reduceResetControl(wait(false), turnEnded({ toolTurn: true, nextQueued: [110] })).effect._tag, "none")
    // And with nothing queued, the run settles first.
    assert.strictEqual(reduceResetControl(wait(false), turnEnded({ toolTurn: false })).effect._tag, "none")
    assert.isTrue(boundaryNeeds({ control: wait(false), reminderStaged: false, replyOverflowed: false, automatic: false, tokensLeft: 100_000, warningLine: 1 }).turnEnd)
  })

  const eventArbitrary: fc.Arbitrary<ResetEvent> = fc.constantFrom(...events)

  it("over random event sequences: one boundary per commit, none after an abort, one recovery per failure chain, one close-out per window", () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 60 }), (sequence) => {
        let state = initialResetControl
        let recoveriesInChain = 0
        let closeOutsInWindow = 0
        for (const event of sequence) {
          const { effect, state: next } = reduceResetControl(state, event)
          if (event._tag === "TurnEnded") {
            assert.deepStrictEqual(next.request, noRequest, "a turn_end leaves no request pending")
            if (event.outcome === "aborted") {
              assert.strictEqual(effect._tag, "none", "no boundary for an aborted turn")
              assert.strictEqual(next.closeOut._tag, "None", "an abort drops the close-out")
            }
            if (effect._tag === "commit-boundary") {
              assert.isTrue(event.outcome === "completed" && !event.overflow)
              assert.strictEqual(effect.continue, event.toolTurn, "never a model call after a finished reply")
            }
          }
          if (event._tag === "BeforeSettle" && event.outcome === "aborted") {
            assert.strictEqual(effect._tag, "none", "no continuation after an abort")
          }
          if (effect._tag === "recover-overflow") recoveriesInChain++
          assert.isAtMost(recoveriesInChain, 1, "at most one recovery per failure chain")
          if (effect._tag === "carry-close-out" && state.closeOut._tag === "Due") closeOutsInWindow++
          assert.isAtMost(closeOutsInWindow, 1, "at most one close-out per window")
          // A chain ends when a turn completes, the run settles or state is cleared.
          const chainEnds = (event._tag === "TurnEnded" && event.outcome === "completed" && !event.overflow) || event._tag === "Settled" ||
            event._tag === "Cleared"
          if (chainEnds) recoveriesInChain = 0
          // Every event here is in window W; a boundary or a clear starts the count again.
          if (effect._tag === "commit-boundary" || effect._tag === "recover-overflow" || event._tag === "Cleared") closeOutsInWindow = 0
          state = next
        }
      }),
      { numRuns: 20_000 }
    )
  })
})

describe("boundary hook needs", () => {
  const quiet = { control: initialResetControl, reminderStaged: false, replyOverflowed: false, automatic: true, tokensLeft: 100_000, warningLine: 28_672 }

  it("keeps both hooks off in the common case: nothing pending, far from the warning line", () => {
    assert.deepStrictEqual(boundaryNeeds(quiet), { turnEnd: false, beforeSettle: false })
  })

  it("needs turn_end for a pending wipe, a staged reminder, an overflowed reply, a close-out, or a window at its warning line", () => {
    assert.isTrue(boundaryNeeds({ ...quiet, control: { ...initialResetControl, request: requested } }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, reminderStaged: true }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, replyOverflowed: true }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, control: { ...initialResetControl, closeOut: { _tag: "Sent", windowId: W } } }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, tokensLeft: 28_672 }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, tokensLeft: null }).turnEnd)
    // Without automatic resets the hard line never falls due.
    assert.isFalse(boundaryNeeds({ ...quiet, automatic: false, tokensLeft: 1_000 }).turnEnd)
  })

  it("needs agent_before_settle exactly while an overflow awaits its recovery or a close-out its boundary", () => {
    for (const overflow of overflows) {
      for (const closeOut of closeOuts) {
        assert.strictEqual(
          boundaryNeeds({ ...quiet, control: { ...initialResetControl, overflow, closeOut } }).beforeSettle,
          overflow === "pending" || overflow === "pending-spent" || closeOut._tag !== "None"
        )
      }
    }
  })
})
