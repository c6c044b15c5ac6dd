import { Context, type Effect, type Scope } from "effect"
import type { BranchEntry } from "../kernel/entries.ts"
import type { ProjectableMessage } from "./projection.ts"
import type { WindowFacts, ResetSource, WindowUsage } from "../kernel/facts.ts"
import type { CurrentWindow, WindowSpan } from "./walk.ts"
import type { PiSession } from "../kernel/PiSession.ts"

export type { CurrentWindow, WindowSpan }

/** A window a reset is about to open: its id, born here, and its w-number. */
export interface NextWindow {
  readonly id: string
  readonly ordinal: number
}

/** Why the rooms now follow a window: a reset opened it, or the branch was read afresh (session start, tree navigation). */
export type WindowOpenReason = ResetSource | "session-start" | "tree"

/** How a window ended for the rooms: by a reset, or with the session. */
export type WindowEndReason = ResetSource | "session-end"

/**
 * What the Window room tells the rooms that follow it: data only. A
 * subscriber runs in the publisher's fiber, with the event's Pi session in
 * its context; what it needs of Pi later (a commit forked past the hook) it
 * takes then.
 */
export type WindowEvent =
  | {
    readonly _tag: "WindowOpened"
    readonly id: string
    readonly ordinal: number
    readonly reason: WindowOpenReason
  }
  | {
    readonly _tag: "WindowEnded"
    readonly id: string
    readonly ordinal: number
    readonly reason: WindowEndReason
    /** The ending window's facts, as the windows view shows them. */
    readonly facts: WindowFacts
  }

/**
 * The one owner of "the windows of this branch": which window is current,
 * its w-number, start and entries (raw and classified), its usage (with the
 * reset correction), and every window with its facts, all read by the one
 * walk of window/walk.ts: nothing else walks the branch for markers.
 * Cached per extension instance: the loop asks before every request and at
 * every turn end.
 */
export class Window extends Context.Service<Window, {
  /** The window the next request belongs to; incremental: costs the entries appended since the last call. */
  readonly current: Effect.Effect<CurrentWindow, never, PiSession>
  /**
   * The current window's usage: as last measured from a request or a reply
   * in it, else Pi's figure with the reset correction (unknown until the
   * window's first reply). Undefined when no model is selected.
   */
  readonly usage: Effect.Effect<WindowUsage | undefined, never, PiSession>
  /** Measures (and remembers) the usage of a provider request being built for `window`. */
  readonly measureRequest: (
    window: CurrentWindow,
    messages: ReadonlyArray<ProjectableMessage>
  ) => Effect.Effect<WindowUsage | undefined, never, PiSession>
  /** Remembers a finished reply's provider-reported tokens as `window`'s usage. */
  readonly rememberReply: (window: CurrentWindow, tokens: number) => Effect.Effect<void, never, PiSession>
  /** Every window of the active branch, oldest first, with its facts. */
  readonly windows: Effect.Effect<ReadonlyArray<WindowFacts>, never, PiSession>
  /** Every window of the active branch, oldest first, with its raw entries (its marker first): one walk of the whole branch. */
  readonly spans: Effect.Effect<ReadonlyArray<WindowSpan>, never, PiSession>
  /** Whether the branch holds a reset: the current window began at one. */
  readonly hasReset: Effect.Effect<boolean, never, PiSession>
  /** Whether the branch that ends at entry `id` (a /tree target) holds a reset. */
  readonly hasResetAt: (id: string) => Effect.Effect<boolean, never, PiSession>
  /**
   * Whether pi-context may start new resets (reminders, automatic resets):
   * what the user last set with `/pi-context on|off` on the branch, else the
   * setting. `/wipe-memory` works either way.
   */
  readonly enabled: Effect.Effect<boolean, never, PiSession>
  /** Entries on the branch that claim to be pi-context's but do not decode: ignored, and told. */
  readonly unreadable: Effect.Effect<ReadonlyArray<Extract<BranchEntry, { readonly _tag: "Foreign" }>>, never, PiSession>
  /** The ids of the entries Pi's own context still holds on the branch, which a reset hides from it (window/piContext.ts). */
  readonly heldByPi: Effect.Effect<ReadonlyArray<string>, never, PiSession>
  /** Drops what was measured: the branch may have changed (reset, tree navigation, on/off). */
  readonly forget: Effect.Effect<void>
  /** Mints the window a reset of `from` opens: a fresh id of this session, the w-number after `from`'s. */
  readonly nextWindow: (from: CurrentWindow) => Effect.Effect<NextWindow, never, PiSession>
  /**
   * A reset ends `from` and opens `to` (Pi commits the boundary at this event,
   * or it was just appended): every subscriber hears `WindowEnded` then
   * `WindowOpened` before this returns.
   */
  readonly reset: (input: { readonly from: CurrentWindow; readonly to: NextWindow; readonly source: ResetSource }) => Effect.Effect<void, never, PiSession>
  /** The branch was read afresh: every subscriber hears the current window opened, for `reason`. */
  readonly follow: (reason: "session-start" | "tree") => Effect.Effect<void, never, PiSession>
  /** The session ends: every subscriber hears the current window ended. */
  readonly sessionEnding: Effect.Effect<void, never, PiSession>
  /**
   * Runs `handler` on every event published from now until `scope` closes,
   * in the publisher's fiber (with its Pi session), after the handlers that
   * subscribed before it. The publisher waits for each, so a handler only
   * records or forks: it never waits itself.
   */
  readonly subscribe: (handler: (event: WindowEvent) => Effect.Effect<void, never, PiSession>) => Effect.Effect<void, never, Scope.Scope>
}>()("pi-context/Window") {}
