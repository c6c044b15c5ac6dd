import { Context, type Effect, type Option } from "effect"
import type { ReminderDraft } from "../budget/reminders.ts"
import type { ProjectableMessage } from "../window/projection.ts"
import type { BoundaryNeeds, TurnOutcome } from "./resetControl.ts"
import type { PiSession } from "../kernel/PiSession.ts"

/** What the `turn_end` / `agent_before_settle` hook hands back to Pi. */
export interface BoundaryReply {
  /** Pi's incoming drafts first, then budget drafts, then reset drafts. */
  readonly entries: ReadonlyArray<unknown>
  readonly continue?: boolean
}

/** A boundary hook's answer: Pi's drafts (undefined: leave Pi's as they are), and the boundary hooks now needed. */
export interface BoundaryOutcome {
  readonly reply: BoundaryReply | undefined
  readonly needs: BoundaryNeeds
}

/**
 * The provider request for the active window, as data: the adapter appends
 * the hidden reminders and close-out (in that order) as Pi messages of `windowId`.
 */
export interface ProjectReply<M> {
  /** The projected request; undefined: Pi's own. */
  readonly messages: ReadonlyArray<M> | undefined
  /** The hidden reminders this request carries, while they are staged and not yet committed. */
  readonly reminders: ReadonlyArray<ReminderDraft>
  /** The close-out instruction, on the request built after a finished reply past the hard line. */
  readonly closeOut: Option.Option<string>
  readonly windowId: string
  readonly needs: BoundaryNeeds
}

/** A just-finished assistant reply's facts: an overflow, or the tokens its request used (null: unknown). */
export interface ReplyFacts {
  readonly overflow: boolean
  readonly tokens: number | null
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
  /** When each message Pi delivers after this turn was queued (absent or empty: none). */
  readonly queued?: ReadonlyArray<number>
}

export interface WipeReply {
  readonly text: string
  readonly scheduled: boolean
  /** The checkpoint check refused this call: an ordinary result that says what to do. */
  readonly refused: boolean
}

/**
 * Owns resets: requests, the reducer, the sole `turn_end` composer, the
 * projection, repair, `/wipe-memory` and on/off. Every reply to a hook that
 * may change them carries the boundary hooks needed next. Notices are
 * emitted (`PiSession.notify`), never returned.
 */
export class Lifecycle extends Context.Service<Lifecycle, {
  readonly sessionStarted: (reason: string) => Effect.Effect<BoundaryNeeds, never, PiSession>
  readonly treeChanged: Effect.Effect<void, never, PiSession>
  readonly modelChanged: Effect.Effect<void, never, PiSession>
  readonly turnStarted: Effect.Effect<void, never, PiSession>
  /** Before a run's first request: a root window nothing was sent in gets the notes that arrived since its boot; the needs for the run. */
  readonly runStarting: Effect.Effect<BoundaryNeeds, never, PiSession>
  /** The provider request for the active window, and the boundary hooks this request leaves needed. */
  readonly project: <M extends ProjectableMessage>(messages: ReadonlyArray<M>) => Effect.Effect<ProjectReply<M>, never, PiSession>
  readonly requestWipe: Effect.Effect<WipeReply, never, PiSession>
  /** What boundary hooks must be live now; `reply`: an assistant message just finished. */
  readonly boundaryNeeds: (reply?: ReplyFacts) => Effect.Effect<BoundaryNeeds, never, PiSession>
  readonly turnEnded: (input: BoundaryInput) => Effect.Effect<BoundaryOutcome, never, PiSession>
  readonly beforeSettle: (input: BoundaryInput) => Effect.Effect<BoundaryOutcome, never, PiSession>
  readonly settled: (aborted: boolean) => Effect.Effect<BoundaryNeeds, never, PiSession>
  /** `/wipe-memory`: appends a boundary while idle, or when the active run settles; never calls a model. */
  readonly wipeNow: Effect.Effect<void, never, PiSession>
  /** `/pi-context on|off`: records the choice on the branch; on gives a root window its boot. */
  readonly setEnabled: (enabled: boolean) => Effect.Effect<void, never, PiSession>
}>()("pi-context/Lifecycle") {}

export type { BoundaryNeeds }
