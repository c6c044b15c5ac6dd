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
  /** As `render`, with the number of notes in the homes the boot indexes (for the reset's chat entry). */
  readonly renderCounted: (window: {
    readonly windowId: string
    readonly previousWindowId: string | undefined
    readonly continuity?: BootContinuity
  }) => Effect.Effect<{ readonly text: string; readonly notesIndexed: number }, BootBuildFailed, PiSession>
  /** A fork starts with a copy of its parent's session notes (when its own home is empty). */
  readonly inheritForkNotes: Effect.Effect<void, never, PiSession>
}>()("pi-context/Boots") {}
