import { Context, type Effect } from "effect"
import type { ProjectableMessage } from "../domain/projection.ts"
import type { WindowFacts } from "../domain/window/facts.ts"
import type { WindowUsage } from "../domain/window/usage.ts"
import type { CurrentWindow, WindowSpan } from "../domain/window/walk.ts"
import type { PiSession } from "./PiSession.ts"

export type { CurrentWindow, WindowSpan }

/**
 * The one owner of "the windows of this branch": which window is current,
 * its w-number, start and entries (raw and classified), its usage (with the
 * reset correction), and every window with its facts, all read by the one
 * walk of domain/window/walk.ts: nothing else walks the branch for markers.
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
  /** Drops what was measured: the branch may have changed (reset, tree navigation, on/off). */
  readonly forget: Effect.Effect<void>
}>()("pi-context/Window") {}
