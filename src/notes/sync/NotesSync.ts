import { Context, type Effect } from "effect"
import type { RemoteSyncState } from "./syncTypes.ts"
import type { SyncSetup } from "./syncView.ts"
import type { PiSession } from "../../kernel/PiSession.ts"

/**
 * The note homes that travel through git remotes (`pi-context.sync`). Every
 * pull and push runs in the background, bounded, and never on a hook's path:
 * the first prompt never waits for a remote, and a failure is a notice and a
 * state for doctor, never an error. No remote configured: nothing leaves the machine.
 * When a window ends (the Window room's event) it pushes every remote,
 * retrying a failed one.
 */
export class NotesSync extends Context.Service<NotesSync, {
  /** Session start: forks a bounded pull of every remote; returns at once. */
  readonly started: Effect.Effect<void, never, PiSession>
  /** Waits for the pulls and pushes forked so far, at most `timeoutMs`: the session's end waits no longer for its last push. */
  readonly awaitRounds: (timeoutMs: number) => Effect.Effect<void>
  /** `/pi-context notes sync now`: one pull and push of every remote, waited for; the states after. */
  readonly syncNow: Effect.Effect<ReadonlyArray<RemoteSyncState>, never, PiSession>
  /** Every configured remote's state; empty when none is configured. */
  readonly states: Effect.Effect<ReadonlyArray<RemoteSyncState>, never, PiSession>
  /** Where a remote is set (this session's global settings file), and why each entry set was ignored. */
  readonly setup: Effect.Effect<SyncSetup, never, PiSession>
}>()("pi-context/NotesSync") {}
