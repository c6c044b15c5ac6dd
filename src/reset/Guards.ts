import { Context, type Effect } from "effect"
import type { PiSession } from "../kernel/PiSession.ts"

/** Whether to let Pi's native compaction or tree summary run; a block has told the user why. */
export type GuardVerdict = "Allow" | "Block"

/** A compaction that failed, as Pi tells it after the fact. */
export interface CompactionFailure {
  readonly reason: "manual" | "threshold" | "overflow"
  readonly errorMessage: string | undefined
  readonly aborted: boolean
}

/** Pi's native compaction and /tree summaries, which would carry erased history back into a window. */
export class Guards extends Context.Service<Guards, {
  /** `manual` is the user's `/compact`; Pi's automatic attempts are told about once per window. */
  readonly compactionGuard: (reason: "manual" | "threshold" | "overflow") => Effect.Effect<GuardVerdict, never, PiSession>
  /**
   * Pi refused a `/compact` before asking the guard (nothing to compact, already compacted): its reason
   * misleads where native compaction never runs, so pi-context says why.
   */
  readonly compactionFailed: (failure: CompactionFailure) => Effect.Effect<void, never, PiSession>
  readonly treeSummaryGuard: (targetId: string, userWantsSummary: boolean) => Effect.Effect<GuardVerdict, never, PiSession>
  /** After a tree navigation, on the branch it reached: why the summary was left empty, when it was. */
  readonly showTreeNotice: Effect.Effect<void, never, PiSession>
}>()("pi-context/Guards") {}
