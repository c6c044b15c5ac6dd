import { Context, type Effect } from "effect"
import type { ResolvedPolicy } from "./policy.ts"
import type { PiSession } from "../kernel/PiSession.ts"

/**
 * The budget policy: pi-context settings (Pi's effective settings, each value
 * named after the settings file that holds it, or as set through Pi) or an
 * injected policy, validated and resolved into lines for Pi's
 * current model. Never fails: every settings problem is a notice, reported
 * once per distinct problem per extension instance, and a safe value.
 */
export class Thresholds extends Context.Service<Thresholds, {
  /**
   * The policy for Pi's current model. From settings: as read at
   * the last `refresh` (read on first use). Injected: resolved now, on every
   * call. Notices not reported before are shown here (`PiSession.notify`).
   */
  readonly policy: Effect.Effect<ResolvedPolicy, never, PiSession>
  /**
   * Re-reads Pi's settings and the files (call on session start, tree navigation and
   * model change) and tells the user of the notices not reported before.
   */
  readonly refresh: Effect.Effect<void, never, PiSession>
}>()("pi-context/Thresholds") {}
