import { Context, type Effect } from "effect"
import type { BootContinuity } from "../domain/boot.ts"
import type { BootBuildFailed } from "./Lifecycle.ts"
import type { PiSession } from "./PiSession.ts"

/** Builds hidden boots from one closed notes snapshot, and seeds a fork's session notes. */
export class Boots extends Context.Service<Boots, {
  /** The boot text for `windowId`; reports an incomplete notes index once per boot. */
  readonly render: (window: {
    readonly windowId: string
    readonly previousWindowId: string | undefined
    /** After a reset: how the previous window ended, and the windows' starts for the notes' freshness. */
    readonly continuity?: BootContinuity
  }) => Effect.Effect<string, BootBuildFailed, PiSession>
  /** A fork starts with a copy of its parent's session notes (when its own home is empty). */
  readonly inheritForkNotes: Effect.Effect<void, never, PiSession>
}>()("pi-context/Boots") {}
