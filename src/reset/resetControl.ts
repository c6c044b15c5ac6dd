import type { ResetSource } from "../kernel/facts.ts"
/**
 * The reset-control reducer: one state value, one named effect per
 * transition, each with the reason it was taken. Pure; the Lifecycle layer
 * performs the writes and traces every effect with its reason.
 */

export type RequestAxis =
  | { readonly _tag: "NoRequest" }
  | { readonly _tag: "Requested"; readonly windowId: string }

/**
 * The overflow failure chain. `pending`: an overflow awaits its one recovery.
 * `spent`: the recovery was used. `pending-spent`: another overflow after the
 * recovery; it gets none. Settlement ends the chain.
 */
export type OverflowAxis = "idle" | "pending" | "pending-spent" | "spent"

/**
 * The close-out before an automatic reset mid-run. `Due`: a tool turn crossed
 * the hard line; the next request carries the close-out instruction. `Sent`:
 * a request carried it; the boundary follows at that turn's end.
 */
export type CloseOutAxis =
  | { readonly _tag: "None" }
  | { readonly _tag: "Due"; readonly windowId: string }
  | { readonly _tag: "Sent"; readonly windowId: string }

/**
 * The user's `/wipe-memory` that arrived during a run: the window to reset,
 * when it arrived, and whether messages were already queued then (they were
 * asked first, so they run before the reset).
 */
export interface WaitingCommand {
  readonly windowId: string
  readonly at: number
  readonly queuedBefore: boolean
}

export interface ResetControl {
  readonly request: RequestAxis
  readonly overflow: OverflowAxis
  readonly closeOut: CloseOutAxis
  /** The window whose one close-out was sent; it survives settlement, so a window never gets two. */
  readonly closeOutUsed: string | undefined
  /** `/wipe-memory` arrived while a run was active: it resets before a message queued after it, else when the run settles. */
  readonly commandWipe: WaitingCommand | undefined
}

export type TurnOutcome = "completed" | "aborted" | "error"

export type ResetEvent =
  /** The model called `wipe_memory` in this window (and the checkpoint check let it through). */
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
    /** The turn ran tools, so the run goes on; otherwise it was a text reply that ends the run. */
    readonly toolTurn: boolean
    /** When each message Pi delivers next was queued (empty: none is queued). */
    readonly nextQueued: ReadonlyArray<number>
  }
  /** A provider request for this window is being built. */
  | { readonly _tag: "RequestBuilt"; readonly windowId: string }
  | { readonly _tag: "BeforeSettle"; readonly windowId: string; readonly outcome: TurnOutcome; readonly automatic: boolean }
  /** The run settled (Pi is idle); `windowId` is the active window now. */
  | { readonly _tag: "Settled"; readonly windowId: string }
  /** The user's `/wipe-memory`, its boot rendered, while no run is active. */
  | { readonly _tag: "CommandWipe"; readonly windowId: string; readonly idle: true }
  /** The user's `/wipe-memory` during a run: `at` when it arrived, `queuedBefore` whether messages were queued then. */
  | { readonly _tag: "CommandWipe"; readonly windowId: string; readonly idle: false; readonly at: number; readonly queuedBefore: boolean }
  /** Session start, tree navigation, `/pi-context off`, a committed `/wipe-memory`: transient state is dropped. */
  | { readonly _tag: "Cleared" }

export type ResetEffect =
  | { readonly _tag: "none"; readonly reason?: string }
  | { readonly _tag: "requested"; readonly reason: string }
  | { readonly _tag: "already-requested"; readonly reason: string }
  /** Write the boundary at this event; `continue`: start the next request in the fresh window. */
  | { readonly _tag: "commit-boundary"; readonly source: ResetSource; readonly continue: boolean; readonly reason: string }
  | { readonly _tag: "recover-overflow"; readonly reason: string }
  | { readonly _tag: "close-out-due"; readonly reason: string }
  /** Add the close-out instruction to this request. */
  | { readonly _tag: "carry-close-out"; readonly reason: string }
  /** Append the user's boundary now, while idle. */
  | { readonly _tag: "append-command-boundary"; readonly reason: string }
  | { readonly _tag: "command-waits"; readonly reason: string }

export interface Transition {
  readonly state: ResetControl
  readonly effect: ResetEffect
}

export const initialResetControl: ResetControl = {
  request: { _tag: "NoRequest" },
  overflow: "idle",
  closeOut: { _tag: "None" },
  closeOutUsed: undefined,
  commandWipe: undefined
}

const none: ResetEffect = { _tag: "none" }
const noRequest: RequestAxis = { _tag: "NoRequest" }
const noCloseOut: CloseOutAxis = { _tag: "None" }

/** An overflow arrives: the first in a chain may be recovered, later ones may not. */
const overflowArrives = (overflow: OverflowAxis): OverflowAxis =>
  overflow === "idle" ? "pending" : overflow === "pending" ? "pending" : "pending-spent"

/**
 * Whether the messages Pi delivers next were all queued after the waiting
 * `/wipe-memory`: then the reset goes first, as the user asked. Queued at the
 * same millisecond counts as before, unless nothing was queued at the command.
 */
export const queuedAfterCommand = (command: WaitingCommand, nextQueued: ReadonlyArray<number>): boolean =>
  nextQueued.length > 0 && (!command.queuedBefore || nextQueued.every((at) => at > command.at))

const closeOutFor = (state: ResetControl, windowId: string): boolean => state.closeOut._tag !== "None" && state.closeOut.windowId === windowId

const turnEnded = (state: ResetControl, event: Extract<ResetEvent, { _tag: "TurnEnded" }>): Transition => {
  // An abort drops the request and the close-out; the overflow chain ends only when the run
  // settles, so an abort inside a recovery's continuation cannot buy a second recovery.
  if (event.outcome === "aborted") {
    return { state: { ...state, request: noRequest, closeOut: noCloseOut }, effect: none }
  }
  if (event.outcome === "error" || event.overflow) {
    // An ordinary provider error stays Pi's to retry; only an overflow (an error, or a
    // reply cut short by context pressure) joins the chain, recovered at settlement.
    const overflow = event.overflow && event.automatic ? overflowArrives(state.overflow) : state.overflow
    return { state: { ...state, request: noRequest, overflow }, effect: none }
  }
  // Every completed turn consumes the request; a request from an older window is stale.
  const next: ResetControl = { ...state, request: noRequest, overflow: "idle", closeOut: noCloseOut }
  const commit = (source: ResetSource, reason: string): Transition => ({
    state: next,
    effect: { _tag: "commit-boundary", source, continue: event.toolTurn, reason }
  })
  if (state.request._tag === "Requested" && state.request.windowId === event.windowId) {
    return commit("tool", "the model called wipe_memory in this turn")
  }
  const command = state.commandWipe
  // The run would end here and Pi would deliver what is queued: the user's reset goes before what they queued after it.
  if (command?.windowId === event.windowId && !event.toolTurn && queuedAfterCommand(command, event.nextQueued)) {
    return {
      state: { ...next, commandWipe: undefined },
      effect: { _tag: "commit-boundary", source: "command", continue: false, reason: "a message queued after /wipe-memory is next: the reset goes first" }
    }
  }
  if (state.closeOut._tag === "Sent" && state.closeOut.windowId === event.windowId && event.automatic) {
    return commit("close-out", "the close-out turn ended without wipe_memory")
  }
  if (!(event.hardLineDue && event.automatic)) return { state: next, effect: none }
  // A text reply ends the run: the boundary is written at its own turn_end without `continue`, so no
  // model call follows; a message queued meanwhile then starts in the fresh window, not the full one.
  if (!event.toolTurn) return commit("hard-line", "a finished reply crossed the hard line: reset without a model call")
  if (state.closeOutUsed === event.windowId) return commit("hard-line", "the hard line was crossed again after this window's close-out")
  return {
    state: { ...next, closeOut: { _tag: "Due", windowId: event.windowId } },
    effect: { _tag: "close-out-due", reason: "a tool turn crossed the hard line: one close-out turn before the reset" }
  }
}

export const reduceResetControl = (state: ResetControl, event: ResetEvent): Transition => {
  switch (event._tag) {
    case "WipeRequested": {
      if (state.request._tag === "Requested" && state.request.windowId === event.windowId) {
        return { state, effect: { _tag: "already-requested", reason: "wipe_memory was already called in this batch" } }
      }
      return {
        state: { ...state, request: { _tag: "Requested", windowId: event.windowId } },
        effect: { _tag: "requested", reason: "wipe_memory called" }
      }
    }
    case "TurnEnded":
      return turnEnded(state, event)
    case "RequestBuilt": {
      if (!closeOutFor(state, event.windowId)) return { state, effect: none }
      // A retry of the close-out request carries it again; the window's one close-out is this turn.
      return {
        state: { ...state, closeOut: { _tag: "Sent", windowId: event.windowId }, closeOutUsed: event.windowId },
        effect: { _tag: "carry-close-out", reason: state.closeOut._tag === "Due" ? "close-out due" : "retry of the close-out request" }
      }
    }
    case "BeforeSettle": {
      const cleared: ResetControl = { ...state, request: noRequest, closeOut: noCloseOut }
      // Never a continuation after an abort; the chain itself ends when the run settles.
      if (event.outcome === "aborted") return { state: cleared, effect: none }
      if (state.overflow === "pending" || state.overflow === "pending-spent") {
        const recover = state.overflow === "pending" && event.automatic
        return { state: { ...cleared, overflow: "spent" }, effect: recover ? { _tag: "recover-overflow", reason: "the run ended in a context overflow" } : none }
      }
      if (closeOutFor(state, event.windowId) && event.automatic) {
        return { state: cleared, effect: { _tag: "commit-boundary", source: "close-out", continue: false, reason: "the run ended during its close-out" } }
      }
      return { state: cleared, effect: none }
    }
    case "Settled": {
      const settled: ResetControl = { ...initialResetControl, closeOutUsed: state.closeOutUsed }
      if (state.commandWipe === undefined) return { state: settled, effect: none }
      if (state.commandWipe.windowId !== event.windowId) {
        return { state: settled, effect: { _tag: "none", reason: "the window /wipe-memory asked to reset was already reset by the run" } }
      }
      return { state: settled, effect: { _tag: "append-command-boundary", reason: "/wipe-memory waited for the run to settle" } }
    }
    case "CommandWipe":
      return event.idle
        ? { state: { ...state, commandWipe: undefined }, effect: { _tag: "append-command-boundary", reason: "/wipe-memory while idle" } }
        : {
          state: { ...state, commandWipe: { windowId: event.windowId, at: event.at, queuedBefore: event.queuedBefore } },
          effect: { _tag: "command-waits", reason: "a run is active: reset before a message queued after it, else when the run settles" }
        }
    case "Cleared":
      return { state: initialResetControl, effect: none }
  }
}

/** Which of Pi's boundary hooks must be live now. */
export interface BoundaryNeeds {
  /** `turn_end`: a boundary or a reminder may be written at this turn's end (a waiting `/wipe-memory` included). */
  readonly turnEnd: boolean
  /** `agent_before_settle`: an overflow awaits its recovery, or a close-out its boundary. */
  readonly beforeSettle: boolean
}

/**
 * Pi rebuilds the whole session's context around every `turn_end` and
 * `agent_before_settle` handler, so they are live only when needed: a wipe is
 * pending, a reminder is staged, a reply just overflowed, a close-out is under
 * way, or the window is at its warning line (where the hard line may fall
 * due) or its usage is unknown; and, for settlement, while an overflow awaits
 * recovery or a close-out its boundary.
 */
export const boundaryNeeds = (input: {
  readonly control: ResetControl
  readonly reminderStaged: boolean
  readonly replyOverflowed: boolean
  readonly automatic: boolean
  /** Tokens left in the window, or null when unknown. */
  readonly tokensLeft: number | null
  readonly warningLine: number
}): BoundaryNeeds => {
  const closingOut = input.control.closeOut._tag !== "None"
  return {
    turnEnd: input.control.request._tag === "Requested" || input.control.commandWipe !== undefined || input.reminderStaged ||
      input.replyOverflowed || closingOut ||
      (input.automatic && (input.tokensLeft === null || input.tokensLeft <= input.warningLine)),
    beforeSettle: input.control.overflow === "pending" || input.control.overflow === "pending-spent" || closingOut
  }
}
