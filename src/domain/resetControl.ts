/**
 * The reset-control reducer: one state value with two axes, one named effect
 * per transition. Pure; the Lifecycle layer performs the writes.
 */

/** Who asked for the reset. The hard line and overflow are automatic. */
export type ResetSource = "tool" | "hard-line" | "overflow"

export type RequestAxis =
  | { readonly _tag: "NoRequest" }
  | { readonly _tag: "Requested"; readonly windowId: string }

/**
 * The overflow failure chain. `pending`: an overflow awaits its one recovery.
 * `spent`: the recovery was used. `pending-spent`: another overflow after the
 * recovery; it gets none. A completed turn or settlement ends the chain.
 */
export type OverflowAxis = "idle" | "pending" | "pending-spent" | "spent"

export interface ResetControl {
  readonly request: RequestAxis
  readonly overflow: OverflowAxis
}

export type TurnOutcome = "completed" | "aborted" | "error"

export type ResetEvent =
  /** The model called `wipe_memory` in this window. */
  | { readonly _tag: "WipeRequested"; readonly windowId: string }
  | {
    readonly _tag: "TurnEnded"
    readonly windowId: string
    readonly outcome: TurnOutcome
    /** The turn failed with a context overflow, or its reply was cut short by context pressure (pi-ai's overflow/length detection). */
    readonly overflow: boolean
    /** The active window is at or past the budget's hard line after this turn. */
    readonly hardLineDue: boolean
    /** pi-context is on and automatic resets are allowed. */
    readonly automatic: boolean
  }
  | { readonly _tag: "BeforeSettle"; readonly outcome: TurnOutcome; readonly automatic: boolean }
  | { readonly _tag: "Settled" }
  /** Session start, tree navigation, `/pi-context off`: transient state is dropped. */
  | { readonly _tag: "Cleared" }

export type ResetEffect =
  | { readonly _tag: "none" }
  | { readonly _tag: "requested" }
  | { readonly _tag: "already-requested" }
  | { readonly _tag: "commit-boundary"; readonly source: ResetSource }
  | { readonly _tag: "recover-overflow" }

export interface Transition {
  readonly state: ResetControl
  readonly effect: ResetEffect
}

export const initialResetControl: ResetControl = { request: { _tag: "NoRequest" }, overflow: "idle" }

const none: ResetEffect = { _tag: "none" }
const noRequest: RequestAxis = { _tag: "NoRequest" }

/** An overflow arrives: the first in a chain may be recovered, later ones may not. */
const overflowArrives = (overflow: OverflowAxis): OverflowAxis =>
  overflow === "idle" ? "pending" : overflow === "pending" ? "pending" : "pending-spent"

export const reduceResetControl = (state: ResetControl, event: ResetEvent): Transition => {
  switch (event._tag) {
    case "WipeRequested": {
      if (state.request._tag === "Requested" && state.request.windowId === event.windowId) {
        return { state, effect: { _tag: "already-requested" } }
      }
      return { state: { ...state, request: { _tag: "Requested", windowId: event.windowId } }, effect: { _tag: "requested" } }
    }
    case "TurnEnded": {
      // An abort drops the request; the overflow chain ends only when the run settles, so an
      // abort inside a recovery's continuation cannot buy a second recovery.
      if (event.outcome === "aborted") return { state: { request: noRequest, overflow: state.overflow }, effect: none }
      if (event.outcome === "error" || event.overflow) {
        // An ordinary provider error stays Pi's to retry; only an overflow (an error, or a
        // reply cut short by context pressure) joins the chain, recovered at settlement.
        const overflow = event.overflow && event.automatic ? overflowArrives(state.overflow) : state.overflow
        return { state: { request: noRequest, overflow }, effect: none }
      }
      const explicit = state.request._tag === "Requested" && state.request.windowId === event.windowId
      // Every completed turn consumes the request; a request from an older window is stale.
      const next: ResetControl = { request: noRequest, overflow: "idle" }
      if (explicit) return { state: next, effect: { _tag: "commit-boundary", source: "tool" } }
      if (event.hardLineDue && event.automatic) return { state: next, effect: { _tag: "commit-boundary", source: "hard-line" } }
      return { state: next, effect: none }
    }
    case "BeforeSettle": {
      // Never a continuation after an abort; the chain itself ends when the run settles.
      if (event.outcome === "aborted") return { state: { request: noRequest, overflow: state.overflow }, effect: none }
      if (state.overflow === "pending" && event.automatic) {
        return { state: { request: noRequest, overflow: "spent" }, effect: { _tag: "recover-overflow" } }
      }
      if (state.overflow === "pending" || state.overflow === "pending-spent") {
        return { state: { request: noRequest, overflow: "spent" }, effect: none }
      }
      return { state: { ...state, request: noRequest }, effect: none }
    }
    case "Settled":
    case "Cleared":
      return { state: initialResetControl, effect: none }
  }
}

/** Which of Pi's boundary hooks must be live now. */
export interface BoundaryNeeds {
  /** `turn_end`: a boundary or a reminder may be written at this turn's end. */
  readonly turnEnd: boolean
  /** `agent_before_settle`: an overflow awaits its recovery. */
  readonly beforeSettle: boolean
}

/**
 * Pi rebuilds the whole session's context around every `turn_end` and
 * `agent_before_settle` handler, so they are live only when needed: a wipe is
 * pending, a reminder is staged, a reply just overflowed, or the window is at
 * its warning line (where the hard line may fall due) or its usage is
 * unknown; and, for settlement, while an overflow awaits recovery.
 */
export const boundaryNeeds = (input: {
  readonly control: ResetControl
  readonly reminderStaged: boolean
  readonly replyOverflowed: boolean
  readonly automatic: boolean
  /** Tokens left in the window, or null when unknown. */
  readonly tokensLeft: number | null
  readonly warningLine: number
}): BoundaryNeeds => ({
  turnEnd: input.control.request._tag === "Requested" || input.reminderStaged || input.replyOverflowed ||
    (input.automatic && (input.tokensLeft === null || input.tokensLeft <= input.warningLine)),
  beforeSettle: input.control.overflow === "pending" || input.control.overflow === "pending-spent"
})
