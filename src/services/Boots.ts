import { Context, type Effect, Schema } from "effect"
import type { BootContinuity } from "../domain/boot.ts"
import type { PiSession } from "./PiSession.ts"

/** Building a boundary's boot failed; the boundary is not written. */
export class BootBuildFailed extends Schema.TaggedError<BootBuildFailed>()("BootBuildFailed", {
  windowId: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `boot for window ${this.windowId}: ${this.reason}`
  }
}

/** The window a boot is built for. */
export interface BootWindow {
  readonly windowId: string
  readonly previousWindowId: string | undefined
  /** After a reset: how the previous window ended, and the windows' starts for the notes' freshness. */
  readonly continuity?: BootContinuity
}

/** Builds hidden boots from one closed notes snapshot. */
export class Boots extends Context.Service<Boots, {
  /** The boot text for `windowId`; reports an incomplete notes index once per boot. */
  readonly render: (window: BootWindow) => Effect.Effect<string, BootBuildFailed, PiSession>
  /** As `render`, with the number of notes in the homes the boot indexes (for the reset's chat entry). */
  readonly renderCounted: (window: BootWindow) => Effect.Effect<{ readonly text: string; readonly notesIndexed: number }, BootBuildFailed, PiSession>
}>()("pi-context/Boots") {}
