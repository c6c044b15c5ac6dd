import { Context, type Effect } from "effect"
import type { PiSession } from "../kernel/PiSession.ts"

/**
 * Whether pi-context may start new resets (reminders, automatic resets): the
 * last `pi-context/state` entry on the branch, else the setting. Cached per
 * extension instance; `/wipe-memory` works either way.
 */
export class Enabled extends Context.Service<Enabled, {
  readonly current: Effect.Effect<boolean, never, PiSession>
  /** The value the user just set, whose state entry is now on the branch. */
  readonly remember: (on: boolean) => Effect.Effect<void>
  /** Drops the cached value: the branch may have changed. */
  readonly forget: Effect.Effect<void>
}>()("pi-context/Enabled") {}
