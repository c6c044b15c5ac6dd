import { Cause, Effect, Option, Random, Ref } from "effect"
import type { BootContinuity } from "../../domain/boot.ts"
import { continuationFor, resetDrafts } from "../../domain/boundary.ts"
import { windowActivity } from "../../domain/checkpoint.ts"
import { windowDigest } from "../../domain/digest.ts"
import { isMarkerEntry } from "../../domain/entries.ts"
import { pendingRequest } from "../../domain/pending.ts"
import { CommandName } from "../../domain/protocol.ts"
import { isAutomaticSource, type ResetSource } from "../../domain/resetControl.ts"
import { newWindowId } from "../../domain/windowId.ts"
import { activeWindow, windowStarts } from "../../domain/windows.ts"
import type { Boots } from "../../services/Boots.ts"
import { NotesHistory } from "../../services/NotesHistory.ts"
import { PiSession } from "../../services/PiSession.ts"
import type { Thresholds } from "../../services/Thresholds.ts"
import type { Trace } from "../../services/Trace.ts"
import type { CurrentWindow } from "./windowView.ts"

const randomHex8 = Effect.map(Random.nextIntBetween(0, 0x1_0000_0000), (n) => n.toString(16).padStart(8, "0"))

export const resetNotice = (windowId: string) => `pi-context: memory reset · new context window ${windowId}`

/** A boundary's drafts, or why none was built. */
export type BoundaryCommit =
  | { readonly _tag: "Committed"; readonly windowId: string; readonly drafts: ReturnType<typeof resetDrafts> }
  | { readonly _tag: "Interrupted" }
  | { readonly _tag: "Failed" }

/**
 * Builds reset boundaries: the new window's boot (with what the ending window
 * left: its w-number, whether it was checkpointed, when each window began)
 * and the continuation (the pending request, and for a reset the model did
 * not ask for, the window's digest).
 */
export const makeBoundaries = (deps: {
  readonly trace: Trace["Service"]
  readonly boots: Boots["Service"]
  readonly thresholds: Thresholds["Service"]
}) =>
  Effect.gen(function*() {
    const { trace, boots, thresholds } = deps
    /** A committed boundary whose notice waits until it is durable on the branch. */
    const pendingResetNotice = yield* Ref.make<Option.Option<string>>(Option.none())
    const notesHistory = yield* Effect.serviceOption(NotesHistory)
    /** The ending window's changed notes go to the notes history, forked: a boundary never waits on git. */
    const commitNotes = (ordinal: number) => (Option.isSome(notesHistory) ? notesHistory.value.windowEnded({ ordinal }) : Effect.void)

    /**
     * Reset drafts for a boundary leaving `from`. Interrupted if the turn is
     * aborted meanwhile.
     */
    const buildReset = (from: CurrentWindow, source: ResetSource) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        const policy = yield* thresholds.policy
        const windowId = newWindowId(session.sessionId, yield* randomHex8)
        const entries = yield* session.branchTail(isMarkerEntry)
        const branch = yield* session.branch
        const activity = windowActivity(entries)
        const continuity: BootContinuity = {
          previousOrdinal: activeWindow(branch, session.sessionId).ordinal,
          checkpointed: activity.checkpointed,
          windowStarts: windowStarts(branch)
        }
        const boot = yield* session.interruptOnAbort(boots.render({ windowId, previousWindowId: from.id, continuity }))
        const pending = pendingRequest(entries)
        const digest = isAutomaticSource(source) ? windowDigest({ entries, pending, budgetTokens: policy.digestTokens.value }) : undefined
        yield* trace.info("continuity.carried", {
          source,
          reason: digest === undefined ? "the model or the user asked for this reset: no digest" : "automatic reset: digest carried",
          pending: pending === undefined ? "none" : `${Array.from(pending).length} chars`,
          checkpointed: activity.checkpointed,
          digestTokens: digest?.tokens ?? 0,
          cut: digest === undefined || digest.cut.length === 0 ? "nothing" : digest.cut.join(", ")
        })
        const continuation = continuationFor({ pending, digest: digest?.text })
        return { windowId, drafts: resetDrafts(windowId, boot, continuation), endingOrdinal: continuity.previousOrdinal }
      })

    const reportBootFailure = (windowId: string, cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        const session = yield* PiSession
        const reason = Cause.pretty(cause).split("\n")[0]
        yield* trace.info("boundary.failed", { windowId, reason })
        yield* session.notify(
          `pi-context: could not build the boot for a new window, so no reset was written (${reason}). ` +
            `Your notes are untouched; try /${CommandName.wipeMemory}.`,
          "error"
        )
      })

    /**
     * Builds the drafts of a boundary that Pi will commit at this event. An
     * abort interrupts it silently; any other failure is told and writes nothing.
     */
    const commitBoundary = (from: CurrentWindow, source: ResetSource, reason: string) =>
      Effect.gen(function*() {
        const built = yield* Effect.exit(buildReset(from, source))
        if (built._tag === "Failure") {
          if (Cause.hasInterrupts(built.cause)) {
            yield* trace.info("boundary.interrupted", { windowId: from.id })
            return { _tag: "Interrupted" } as BoundaryCommit
          }
          yield* reportBootFailure(from.id, built.cause)
          return { _tag: "Failed" } as BoundaryCommit
        }
        yield* Ref.set(pendingResetNotice, Option.some(built.value.windowId))
        yield* trace.info("boundary.commit", { from: from.id, to: built.value.windowId, source, reason })
        yield* commitNotes(built.value.endingOrdinal)
        return { _tag: "Committed", windowId: built.value.windowId, drafts: built.value.drafts } as BoundaryCommit
      })

    /** The reset notice, once the committed boundary of `window` is on the branch. */
    const resetNoticeDue = (window: CurrentWindow) =>
      Effect.gen(function*() {
        const pending = yield* Ref.get(pendingResetNotice)
        if (Option.isNone(pending) || pending.value !== window.id || !window.tail.some((e) => e._tag === "Continuation")) return
        yield* Ref.set(pendingResetNotice, Option.none())
        yield* (yield* PiSession).notify(resetNotice(window.id), "info")
      })

    return { buildReset, commitBoundary, commitNotes, reportBootFailure, resetNoticeDue }
  })

export type Boundaries = Effect.Success<ReturnType<typeof makeBoundaries>>
