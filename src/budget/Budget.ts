import { Context, type Effect } from "effect"
import type { ReminderDraft, ReminderKind } from "./reminders.ts"
import type { ProjectableMessage } from "../window/projection.ts"
import type { PiSession } from "../kernel/PiSession.ts"
import type { StatusTone } from "../kernel/report.ts"

export interface RequestObservation {
  /** Reminders staged by this request, in commit order. */
  readonly staged: ReadonlyArray<ReminderKind>
  /**
   * The reminders to add to this provider request: those of this window staged
   * and not yet committed (the crossing request and any retry of it), so the
   * model sees a reminder in the very request that crossed its line. Once
   * committed, a reminder is a session entry.
   */
  readonly reminders: ReadonlyArray<ReminderDraft>
  /** Tokens left in the window, null when Pi cannot estimate. */
  readonly left: number | null
}

/** Whether a finished turn left the window past its hard line, with the figures the trace records. */
export interface HardLine {
  /** Past the hard line, and `automaticReset` allows the lifecycle to reset by itself. */
  readonly due: boolean
  /** Tokens left after the turn, null when unknown. */
  readonly left: number | null
  readonly line: number
}

/**
 * Guidance and warning reminders for the Window room's current window, from
 * its usage and its committed entries (read there, never handed in). Drafts are staged per
 * extension instance and committed only by the lifecycle's `turn_end`
 * composer; committed reminder entries on the active branch are the authority
 * on what was delivered. Like every service, it tells the user itself
 * (`PiSession.notify`) rather than return notices for a caller to show.
 */
export class Budget extends Context.Service<Budget, {
  /** Before each provider request: measures the request (`messages`) and stages the reminders whose line it crossed. */
  readonly observeRequest: (messages: ReadonlyArray<ProjectableMessage>) => Effect.Effect<RequestObservation, never, PiSession>
  /** For `turn_end`: the current window's staged drafts, guidance first, cleared. Drafts of another window are dropped. */
  readonly takeDrafts: Effect.Effect<ReadonlyArray<ReminderDraft>, never, PiSession>
  /** Drops staged drafts: abort, settlement without `turn_end`, on/off (a window the Window room opens drops them by itself). */
  readonly discard: Effect.Effect<void>
  /** Whether drafts wait for `turn_end`. */
  readonly hasStaged: Effect.Effect<boolean>
  /**
   * At turn start or settlement: tells the user (`PiSession.notify`) of the
   * reminders this instance handed to `turn_end` that are now committed in
   * the current window. Each at most once, with the figures the model was given.
   */
  readonly noticesDue: Effect.Effect<void, never, PiSession>
  /** At a turn's end: measures what Pi holds after it (`messages`; without them, the window's last figure) against the hard line. */
  readonly hardLine: (messages: ReadonlyArray<ProjectableMessage> | undefined) => Effect.Effect<HardLine, never, PiSession>
  /** The status line, e.g. `pi-context · 62% · w3` (`pi-context off` when disabled), and its tone. */
  readonly statusLine: (enabled: boolean) => Effect.Effect<{ readonly text: string; readonly tone: StatusTone }, never, PiSession>
  /** The `/pi-context status` lines: every budget line for the current model and where its value came from. */
  readonly statusReport: Effect.Effect<ReadonlyArray<string>, never, PiSession>
}>()("pi-context/Budget") {}
