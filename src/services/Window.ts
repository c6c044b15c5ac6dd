import { Context, type Effect } from "effect"
import type { BranchEntry } from "../domain/entries.ts"
import type { ProjectableMessage } from "../domain/projection.ts"
import type { Window as BranchWindow, WindowFacts } from "../domain/window/facts.ts"
import type { WindowUsage } from "../domain/window/usage.ts"
import type { PiSession } from "./PiSession.ts"

/** The window the next request belongs to, with its classified tail (its marker first, or the branch's root). */
export interface CurrentWindow extends BranchWindow {
  readonly tail: ReadonlyArray<BranchEntry>
}

/**
 * The one owner of "the windows of this branch": which window is current,
 * its w-number and start, its usage (with the reset correction), and every
 * window with its facts. Cached per extension instance: the loop asks before
 * every request and at every turn end.
 */
export class Window extends Context.Service<Window, {
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
  /** Drops what was measured: the branch may have changed (reset, tree navigation, on/off). */
  readonly forget: Effect.Effect<void>
}>()("pi-context/Window") {}
