import { Context, type Effect } from "effect"
import type { BoundaryDraft } from "../domain/boundary.ts"
import type { ProjectableMessage } from "../domain/projection.ts"
import type { BoundaryNeeds, TurnOutcome } from "../domain/resetControl.ts"
import type { PiSession } from "./PiSession.ts"

/** What the `turn_end` / `agent_before_settle` hook hands back to Pi. */
export interface BoundaryReply {
  /** Pi's incoming drafts first, then budget drafts, then reset drafts. */
  readonly entries: ReadonlyArray<unknown>
  readonly continue?: boolean
}

export interface BoundaryInput {
  /** The drafts Pi (and earlier extensions) already put on the boundary. */
  readonly incoming: ReadonlyArray<unknown>
  readonly outcome: TurnOutcome
  /** The turn's assistant message failed with a context overflow. */
  readonly overflow: boolean
  /** Pi's context after the turn, when it has one: the window's usage is measured from it. */
  readonly messages?: ReadonlyArray<{ readonly role: string }>
  /** The turn ran tools (the run goes on); absent or false for a text reply. */
  readonly toolTurn?: boolean
}

export interface WipeReply {
  readonly text: string
  readonly scheduled: boolean
  /** The checkpoint check refused this call: an ordinary result that says what to do. */
  readonly refused: boolean
}

/** Whether to let Pi's native compaction or tree summary run. */
export type GuardVerdict =
  | { readonly _tag: "Allow" }
  /** `notice` is absent when the user was already told in this window (automatic compaction retries). */
  | { readonly _tag: "Block"; readonly notice: string | undefined }

/** Owns resets: requests, the sole `turn_end` composer, the projection, repair and commands. */
export class Lifecycle extends Context.Service<Lifecycle, {
  readonly sessionStarted: (reason: string) => Effect.Effect<void, never, PiSession>
  readonly treeChanged: Effect.Effect<void, never, PiSession>
  readonly modelChanged: Effect.Effect<void, never, PiSession>
  readonly turnStarted: Effect.Effect<void, never, PiSession>
  /**
   * The provider request for the active window (undefined: send Pi's own), and
   * the boundary hooks this request leaves needed. `hidden` builds the hidden
   * messages a request may carry (the final warning, the close-out).
   */
  readonly project: <M extends ProjectableMessage>(
    messages: ReadonlyArray<M>,
    hidden: (customType: string, text: string, windowId: string) => M
  ) => Effect.Effect<{ readonly messages: ReadonlyArray<M> | undefined; readonly needs: BoundaryNeeds }, never, PiSession>
  readonly requestWipe: Effect.Effect<WipeReply, never, PiSession>
  /**
   * What boundary hooks must be live. `reply` is a just-finished assistant
   * message's facts: an overflow, or the tokens its request used.
   */
  readonly boundaryNeeds: (reply?: { readonly overflow: boolean; readonly tokens: number | null }) => Effect.Effect<BoundaryNeeds, never, PiSession>
  readonly turnEnded: (input: BoundaryInput) => Effect.Effect<BoundaryReply | undefined, never, PiSession>
  readonly beforeSettle: (input: BoundaryInput) => Effect.Effect<BoundaryReply | undefined, never, PiSession>
  readonly settled: (aborted: boolean) => Effect.Effect<void, never, PiSession>
  /** `/wipe-memory`: appends a boundary while idle, or when the active run settles; never calls a model. */
  readonly wipeNow: Effect.Effect<void, never, PiSession>
  readonly setEnabled: (enabled: boolean) => Effect.Effect<void, never, PiSession>
  /** `manual` is the user's `/compact`; Pi's automatic attempts are told about once per window. */
  readonly compactionGuard: (reason: "manual" | "threshold" | "overflow") => Effect.Effect<GuardVerdict, never, PiSession>
  readonly treeSummaryGuard: (targetId: string, userWantsSummary: boolean) => Effect.Effect<GuardVerdict, never, PiSession>
  readonly statusReport: Effect.Effect<string, never, PiSession>
}>()("pi-context/Lifecycle") {}

export type { BoundaryDraft }

export type { BoundaryNeeds }
