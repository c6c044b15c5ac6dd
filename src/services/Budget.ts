import { Context, type Effect } from "effect"
import type { ReminderDraft, ReminderKind, Remaining } from "../domain/budget.ts"
import type { BranchEntry } from "../domain/entries.ts"
import type { WindowUsage } from "../domain/window/usage.ts"
import type { PiSession } from "./PiSession.ts"

/** The current window's usage, from the Window service; undefined when no model is selected. */
type Usage = WindowUsage | undefined

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
  readonly hardLineDue: boolean
  readonly remaining: Remaining
  /** The policy this decision used: whether pi-context resets by itself, and the warning line. */
  readonly automaticReset: boolean
  readonly warningLine: number
  readonly guidanceLine: number
  readonly hardLine: number
}

/**
 * Guidance and warning reminders for the active window. Drafts are staged per
 * extension instance and committed only by the lifecycle's `turn_end`
 * composer; committed reminder entries on the active branch are the authority
 * on what was delivered. Like every service, it tells the user itself
 * (`PiSession.notify`) rather than return notices for a caller to show.
 */
export class Budget extends Context.Service<Budget, {
  /** Before each provider request: stages the reminders whose line this request crossed. */
  readonly observeRequest: (input: {
    readonly windowId: string
    readonly usage: Usage
    readonly branch: ReadonlyArray<BranchEntry>
  }) => Effect.Effect<RequestObservation, never, PiSession>
  /** For `turn_end`: the staged drafts of `windowId`, guidance first, cleared. Drafts of another window are dropped. */
  readonly takeDrafts: (windowId: string) => Effect.Effect<ReadonlyArray<ReminderDraft>>
  /** Drops staged drafts: abort, settlement without `turn_end`, window transition. */
  readonly discard: Effect.Effect<void>
  /** Whether drafts wait for `turn_end`. */
  readonly hasStaged: Effect.Effect<boolean>
  /**
   * At turn start or settlement: tells the user (`PiSession.notify`) of the
   * reminders this instance handed to `turn_end` that are now committed on
   * the active branch in `windowId`. Each at most once, with the figures the
   * model was given.
   */
  readonly noticesDue: (input: {
    readonly windowId: string
    readonly branch: ReadonlyArray<BranchEntry>
  }) => Effect.Effect<void, never, PiSession>
  /** Whether the hard line is crossed and `automaticReset` allows the lifecycle to reset by itself. */
  readonly hardLineDue: (input: { readonly windowId: string; readonly usage: Usage }) => Effect.Effect<boolean, never, PiSession>
  readonly remaining: (input: { readonly usage: Usage }) => Effect.Effect<Remaining, never, PiSession>
  /** The status line, e.g. `pi-context · 62% · w3` (`pi-context off` when disabled). */
  readonly statusLine: (input: {
    readonly usage: Usage
    readonly windowOrdinal: number
    readonly enabled?: boolean
  }) => Effect.Effect<string>
  /** The `/pi-context status` lines: every budget line for the current model and where its value came from. */
  readonly statusReport: (input: { readonly usage: Usage }) => Effect.Effect<ReadonlyArray<string>, never, PiSession>
}>()("pi-context/Budget") {}
