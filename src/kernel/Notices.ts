import { Context, type Effect } from "effect"

/**
 * The one queue of notices left for the next hook to show: a background job
 * (a notes commit, a sync round, a restore that outlasted its command) or the
 * trace's file failing has no Pi event of its own to tell the user through.
 * After every hook the runtime shows what waits, oldest first.
 */
export class Notices extends Context.Service<Notices, {
  readonly tell: (text: string) => Effect.Effect<void>
  /** Queues `text` once until `forget` clears `key`: a problem told once, told again only after it went away and came back. */
  readonly tellOnce: (key: string, text: string) => Effect.Effect<void>
  /** Forgets `key`: its next problem is told again. */
  readonly forget: (key: string) => Effect.Effect<void>
  /** Forgets every key that starts with `prefix`. */
  readonly forgetStartingWith: (prefix: string) => Effect.Effect<void>
  readonly wasTold: (key: string) => Effect.Effect<boolean>
  /** Hands out every waiting notice, oldest first; each once. */
  readonly takeAll: Effect.Effect<ReadonlyArray<string>>
}>()("pi-context/Notices") {}
