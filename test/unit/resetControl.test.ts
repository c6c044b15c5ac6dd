import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  boundaryNeeds,
  initialResetControl,
  type OverflowAxis,
  reduceResetControl,
  type RequestAxis,
  type ResetControl,
  type ResetEvent,
  type TurnOutcome
} from "../../src/domain/resetControl.ts"

const W = "pcx:w:1"
const noRequest: RequestAxis = { _tag: "NoRequest" }
const requested: RequestAxis = { _tag: "Requested", windowId: W }
const overflows: ReadonlyArray<OverflowAxis> = ["idle", "pending", "pending-spent", "spent"]
const states: ReadonlyArray<ResetControl> = [noRequest, requested].flatMap((request) =>
  overflows.map((overflow) => ({ request, overflow }))
)
const outcomes: ReadonlyArray<TurnOutcome> = ["completed", "aborted", "error"]

const turnEnded = (fields: Partial<Extract<ResetEvent, { _tag: "TurnEnded" }>> = {}): ResetEvent => ({
  _tag: "TurnEnded",
  windowId: W,
  outcome: "completed",
  overflow: false,
  hardLineDue: false,
  automatic: true,
  ...fields
})

/** Every event shape, with each boolean and outcome varied. */
const events: ReadonlyArray<ResetEvent> = [
  { _tag: "WipeRequested", windowId: W },
  { _tag: "WipeRequested", windowId: "pcx:w:2" },
  ...outcomes.flatMap((outcome) =>
    [false, true].flatMap((overflow) =>
      [false, true].flatMap((hardLineDue) =>
        [false, true].flatMap((automatic) => [turnEnded({ outcome, overflow, hardLineDue, automatic })])
      )
    )
  ),
  ...outcomes.flatMap((outcome) => [false, true].map((automatic): ResetEvent => ({ _tag: "BeforeSettle", outcome, automatic }))),
  { _tag: "Settled" },
  { _tag: "Cleared" }
]

/** The expected transition, stated rule by rule as in the lifecycle spec. */
const expected = (state: ResetControl, event: ResetEvent): { effect: string; state: ResetControl } => {
  switch (event._tag) {
    case "WipeRequested":
      return state.request._tag === "Requested" && state.request.windowId === event.windowId
        ? { effect: "already-requested", state }
        : { effect: "requested", state: { ...state, request: { _tag: "Requested", windowId: event.windowId } } }
    case "TurnEnded": {
      if (event.outcome === "aborted") return { effect: "none", state: { request: noRequest, overflow: state.overflow } }
      if (event.outcome === "error" || event.overflow) {
        const next: OverflowAxis = !(event.overflow && event.automatic)
          ? state.overflow
          : state.overflow === "idle" || state.overflow === "pending"
          ? "pending"
          : "pending-spent"
        return { effect: "none", state: { request: noRequest, overflow: next } }
      }
      const commits = (state.request._tag === "Requested" && state.request.windowId === event.windowId) ||
        (event.hardLineDue && event.automatic)
      return { effect: commits ? "commit-boundary" : "none", state: initialResetControl }
    }
    case "BeforeSettle":
      if (event.outcome === "aborted") return { effect: "none", state: { request: noRequest, overflow: state.overflow } }
      if (state.overflow === "pending" && event.automatic) {
        return { effect: "recover-overflow", state: { request: noRequest, overflow: "spent" } }
      }
      if (state.overflow === "pending" || state.overflow === "pending-spent") {
        return { effect: "none", state: { request: noRequest, overflow: "spent" } }
      }
      return { effect: "none", state: { ...state, request: noRequest } }
    case "Settled":
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
        assert.deepStrictEqual(
          { effect: actual.effect._tag, state: actual.state },
          want,
          `${JSON.stringify(state)} × ${JSON.stringify(event)}`
        )
      }
    }
  })

  it("names the source of a commit: the model's request wins over the hard line", () => {
    const both = reduceResetControl({ request: requested, overflow: "idle" }, turnEnded({ hardLineDue: true }))
    assert.deepStrictEqual(both.effect, { _tag: "commit-boundary", source: "tool" })
    const line = reduceResetControl(initialResetControl, turnEnded({ hardLineDue: true }))
    assert.deepStrictEqual(line.effect, { _tag: "commit-boundary", source: "hard-line" })
  })

  it("drops a request made in an older window instead of resetting the new one", () => {
    const stale = reduceResetControl({ request: requested, overflow: "idle" }, turnEnded({ windowId: "pcx:w:2" }))
    assert.strictEqual(stale.effect._tag, "none")
    assert.deepStrictEqual(stale.state.request, noRequest)
  })

  const eventArbitrary: fc.Arbitrary<ResetEvent> = fc.constantFrom(...events)

  it("over random event sequences: one boundary per commit, none after an abort, one recovery per failure chain, every turn_end consumes the request", () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 60 }), (sequence) => {
        let state = initialResetControl
        let recoveriesInChain = 0
        for (const event of sequence) {
          const { effect, state: next } = reduceResetControl(state, event)
          if (event._tag === "TurnEnded") {
            assert.deepStrictEqual(next.request, noRequest, "a turn_end leaves no request pending")
            if (event.outcome === "aborted") assert.strictEqual(effect._tag, "none", "no boundary for an aborted turn")
            if (effect._tag === "commit-boundary") assert.isTrue(event.outcome === "completed" && !event.overflow)
          }
          if (event._tag === "BeforeSettle" && event.outcome === "aborted") {
            assert.strictEqual(effect._tag, "none", "no continuation after an abort")
          }
          if (effect._tag === "recover-overflow") recoveriesInChain++
          assert.isAtMost(recoveriesInChain, 1, "at most one recovery per failure chain")
          // A chain ends when a turn completes, the run settles or state is cleared.
          const chainEnds = (event._tag === "TurnEnded" && event.outcome !== "error" && !event.overflow) || event._tag === "Settled" ||
            event._tag === "Cleared"
          if (chainEnds) recoveriesInChain = 0
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

  it("needs turn_end for a pending wipe, a staged reminder, an overflowed reply, or a window at its warning line", () => {
    assert.isTrue(boundaryNeeds({ ...quiet, control: { request: requested, overflow: "idle" } }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, reminderStaged: true }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, replyOverflowed: true }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, tokensLeft: 28_672 }).turnEnd)
    assert.isTrue(boundaryNeeds({ ...quiet, tokensLeft: null }).turnEnd)
    // Without automatic resets the hard line never falls due.
    assert.isFalse(boundaryNeeds({ ...quiet, automatic: false, tokensLeft: 1_000 }).turnEnd)
  })

  it("needs agent_before_settle exactly while an overflow awaits its recovery", () => {
    for (const overflow of overflows) {
      assert.strictEqual(
        boundaryNeeds({ ...quiet, control: { request: noRequest, overflow } }).beforeSettle,
        overflow === "pending" || overflow === "pending-spent"
      )
    }
  })
})
