import { Clock, Duration, Effect } from "effect"
import { ToolName } from "./protocol.ts"
import { scanDeadlineOf } from "./scanDeadline.ts"
import { failed, type ToolOutcome } from "./toolOutcome.ts"
import { CurrentScanDeadline } from "./CurrentScanDeadline.ts"

/**
 * The time budget of one tool call. `scanMs`, counted from the start of a
 * scan, is checked cooperatively inside it, and the scan then answers with
 * what it found and a cursor (a timer cannot interrupt synchronous work on
 * Pi's event loop); `callMs` interrupts a call that waits too long on
 * anything else (a disk, a lock).
 */
export const ToolTimeLimits = { scanMs: 100, callMs: 30_000 } as const

const writers: ReadonlySet<string> = new Set([ToolName.notesWrite, ToolName.notesUpdate, ToolName.wipeMemory])

const timedOut = (tool: string): ToolOutcome =>
  failed(
    "timed_out",
    `${tool} did not finish within ${ToolTimeLimits.callMs / 1000} s and was stopped. ` +
      (writers.has(tool)
        ? "It may or may not have taken effect: check (notes_read, notes_list) before trying again."
        : "Nothing was changed; try again, or narrow the request.")
  )

/** Runs one tool call within the budget, so that it always answers, in bounded time. */
export const withTimeLimit = (tool: string) => <R>(call: Effect.Effect<ToolOutcome, never, R>): Effect.Effect<ToolOutcome, never, R> =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const startScan = () => scanDeadlineOf(ToolTimeLimits.scanMs, () => clock.currentTimeMillisUnsafe())
    return yield* call.pipe(
      Effect.provideService(CurrentScanDeadline, startScan),
      Effect.timeoutOrElse({ duration: Duration.millis(ToolTimeLimits.callMs), orElse: () => Effect.succeed(timedOut(tool)) })
    )
  })
