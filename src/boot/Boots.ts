import { Context, type Effect, Schema } from "effect"
import type { BootContinuity } from "./boot.ts"
import type { PiSession } from "../kernel/PiSession.ts"

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

/** A rendered boot: its text, the notes in the homes it indexes, and the homes it could not read. */
export interface RenderedBoot {
  readonly text: string
  readonly notesIndexed: number
  readonly unavailableHomes: ReadonlyArray<string>
  /** Files left out of the homes for their names (raw addresses). */
  readonly refused: ReadonlyArray<string>
  /** What the boot's notes index was built from (addresses, sizes, times), so a caller can tell whether the notes changed since. */
  readonly notesFingerprint: string
}

/**
 * Builds hidden boots from one closed notes snapshot. Rendering tells the
 * user nothing: a boot may be built and dropped (an abort, a run that
 * started meanwhile); whoever writes it calls `tellIncomplete`.
 */
export class Boots extends Context.Service<Boots, {
  /** The boot for `windowId`: its text, the notes it indexes (for the reset's chat entry) and the homes it could not read. */
  readonly render: (window: BootWindow) => Effect.Effect<RenderedBoot, BootBuildFailed, PiSession>
  /** Tells the user of a written boot's incomplete notes index (homes unread, files left out for their names), once per boot. */
  readonly tellIncomplete: (windowId: string, boot: Pick<RenderedBoot, "unavailableHomes" | "refused">) => Effect.Effect<void, never, PiSession>
}>()("pi-context/Boots") {}
