import { Cause, Effect, Option, Ref } from "effect"
import type { BootContinuity } from "../boot/boot.ts"
import { type BoundaryDraft, continuationFor, resetDrafts } from "./boundary.ts"
import { writeDrafts } from "./writeDrafts.ts"
import { windowActivity } from "../window/checkpoint.ts"
import { windowDigest } from "../boot/digest.ts"
import { unansweredRequest } from "./pending.ts"
import type { ResetShown } from "../kernel/resetData.ts"
import { CustomType } from "../kernel/protocol.ts"
import type { ReminderDraft } from "../budget/reminders.ts"
import { sessionSignals } from "../window/signals.ts"
import { Boots } from "../boot/Boots.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { Trace } from "../trace/Trace.ts"
import { type CurrentWindow, Window } from "../window/Window.ts"
import { isAutomaticSource, type ResetSource } from "../kernel/facts.ts"
import { bootFailedNotice, resetNotice } from "./resetView.ts"

/** The reset's notice where no divider tells it: a chat that draws the marker's entry already says all of it. */
export const announceReset = (ordinal: number, source: ResetSource) =>
  Effect.gen(function*() {
    const session = yield* PiSession
    if (!(yield* session.chatShowsEntries)) yield* session.notify(resetNotice(ordinal, source), "info")
  })

/** A boundary's drafts, or why none was written. */
export type BoundaryCommit =
  | { readonly _tag: "Committed"; readonly drafts: ReturnType<typeof resetDrafts> }
  | { readonly _tag: "Interrupted" }
  | { readonly _tag: "Failed" }
  /** An append that found a run started meanwhile: nothing was written. */
  | { readonly _tag: "Busy" }

/**
 * How a boundary reaches the branch: at the hook that asked for it
 * (`turn_end`, `agent_before_settle`), written by the hook itself after the
 * drafts that go `before` it (Pi then commits none: the hook answers no
 * drafts), or returned for Pi to commit (where the session manager takes no
 * writes, or other extensions put drafts on the boundary: Pi applies drafts
 * twice, a preview then the commit, each context edit checked against the
 * whole branch); or appended now while Pi is idle, where `append` writes the
 * drafts and answers false, writing nothing, when a run started meanwhile.
 */
export type BoundaryWrite =
  | { readonly _tag: "ReturnedToPi" }
  | { readonly _tag: "WrittenInHook"; readonly before: ReadonlyArray<BoundaryDraft> }
  | {
    readonly _tag: "AppendedNow"
    readonly append: (drafts: ReturnType<typeof resetDrafts>) => Effect.Effect<boolean, never, PiSession>
  }

/**
 * Builds reset boundaries: the new window's boot (with what the ending window
 * left: its w-number, whether it was checkpointed, when each window began)
 * and the continuation (the pending request, and for a reset the model did
 * not ask for, the window's digest).
 */
export const makeBoundaries = Effect.gen(function*() {
  const trace = yield* Trace
  const boots = yield* Boots
  const thresholds = yield* Thresholds
  const window = yield* Window
  /** A committed boundary whose notice waits until it is durable on the branch. */
  const pendingResetNotice = yield* Ref.make<Option.Option<{ readonly windowId: string; readonly ordinal: number; readonly source: ResetSource }>>(
    Option.none()
  )

  /**
   * Reset drafts for a boundary leaving `from`, for the window the Window
   * room mints (`next`), with the ending window as it is now (`ending`).
   * Interrupted if the turn is aborted meanwhile.
   */
  const buildReset = (from: CurrentWindow, source: ResetSource, alongside: ReadonlyArray<ReminderDraft>) =>
    Effect.gen(function*() {
      const session = yield* PiSession
      const policy = yield* thresholds.policy
      const next = yield* window.nextWindow(from)
      const windowId = next.id
      // Read afresh: what the window holds now, which `from` (taken earlier in the turn) may not.
      const ending = yield* window.current
      const { entries } = ending
      const activity = windowActivity(entries)
      const previousOrdinal = from.ordinal
      const windowFacts = yield* window.windows
      // How each window went, in the words of /pi-context report, read before an append adds the new window.
      const signals = sessionSignals(yield* window.spans, windowFacts, policy.reserve.value).windows
      // Windows that began at a reset, with whether the model then read its notes: the last two, when both did not.
      const pickedUp = signals.flatMap((s) =>
        s.notesReadAfterReset === undefined ? [] : [{ w: s.w, read: s.notesReadAfterReset }]
      )
      const lastTwo = pickedUp.slice(-2)
      const continuity: BootContinuity = {
        previousOrdinal,
        checkpointed: activity.sessionCheckpoint,
        notesWritten: windowFacts.at(-1)?.notesWritten ?? [],
        windowStarts: windowFacts.flatMap(({ ordinal, startedAt }) => (startedAt === undefined ? [] : [{ ordinal, startedAt }])),
        ...(lastTwo.length === 2 && lastTwo.every((s) => !s.read) ? { resumedWithoutNotes: lastTwo.map((s) => s.w) } : {})
      }
      const boot = yield* session.interruptOnAbort(boots.render({ windowId, previousWindowId: from.id, continuity }))
      const model = Option.getOrUndefined(yield* session.model)
      const shown: ResetShown = {
        ordinal: next.ordinal,
        peakTokens: windowFacts.at(-1)?.peakTokens ?? null,
        contextWindow: model === undefined || !(model.contextWindow > 0) ? null : model.contextWindow,
        notesIndexed: boot.notesIndexed,
        checkpointed: activity.sessionCheckpoint,
        // A reminder Pi appends with this boundary was told to the model too, though the window's entries lack it yet.
        guided: activity.guided || alongside.some((draft) => draft.customType === CustomType.guidance),
        warned: activity.warned || alongside.some((draft) => draft.customType === CustomType.warning)
      }
      const unanswered = unansweredRequest(entries)
      const pending = unanswered?.state === "pending" ? unanswered.text : undefined
      const cancelled = unanswered?.state === "cancelled" ? unanswered.text : undefined
      const digest = isAutomaticSource(source) ? windowDigest({ entries, pending, budgetTokens: policy.digestTokens.value }) : undefined
      yield* trace.info("continuity.carried", {
        source,
        reason: digest === undefined ? "the model or the user asked for this reset: no digest" : "automatic reset: digest carried",
        pending: pending === undefined ? "none" : `${Array.from(pending).length} chars`,
        cancelled: cancelled === undefined ? "none" : `${Array.from(cancelled).length} chars, quoted as cancelled`,
        checkpointed: activity.sessionCheckpoint,
        digestTokens: digest?.tokens ?? 0,
        cut: digest === undefined || digest.cut.length === 0 ? "nothing" : digest.cut.join(", ")
      })
      const continuation = continuationFor({ pending, cancelled, digest: digest?.text })
      return {
        next,
        ending,
        drafts: resetDrafts(windowId, source, boot.text, continuation, shown, yield* window.heldByPi),
        boot,
        ended: signals.at(-1)
      }
    })

  const reportBootFailure = (windowId: string, cause: Cause.Cause<unknown>) =>
    Effect.gen(function*() {
      const session = yield* PiSession
      const reason = Cause.pretty(cause).split("\n")[0] ?? "unknown"
      yield* trace.info("boundary.failed", { windowId, reason })
      yield* session.notify(bootFailedNotice(reason), "error")
    })

  /**
   * Commits one reset of `from`, for either path: the model's and the
   * automatic ones (drafts returned to Pi at its hook) and the user's
   * `/wipe-memory` (drafts appended while Pi is idle). The ending window's
   * signals and the commit are traced while the rooms still follow it, then
   * they move to the new window. An abort interrupts the build silently; any
   * other failure is told and writes nothing. `alongside`: the reminders Pi
   * appends in the same append, before the boundary.
   */
  const commit = (from: CurrentWindow, source: ResetSource, reason: string, write: BoundaryWrite, alongside: ReadonlyArray<ReminderDraft> = []) =>
    Effect.gen(function*() {
      const built = yield* Effect.exit(buildReset(from, source, alongside))
      if (built._tag === "Failure") {
        if (Cause.hasInterrupts(built.cause)) {
          yield* trace.info("boundary.interrupted", { windowId: from.id })
          return { _tag: "Interrupted" } as BoundaryCommit
        }
        yield* reportBootFailure(from.id, built.cause)
        return { _tag: "Failed" } as BoundaryCommit
      }
      const { next, ending, drafts, boot, ended } = built.value
      if (write._tag === "AppendedNow" && !(yield* write.append(drafts))) return { _tag: "Busy" } as BoundaryCommit
      if (write._tag === "WrittenInHook") {
        const session = yield* PiSession
        yield* writeDrafts([...write.before, ...drafts], (draft) => session.appendHiddenMessage(draft))
      }
      if (ended !== undefined) {
        yield* trace.info("reset.signals", {
          window: `w${ended.w}`,
          checkpointWritten: ended.checkpointWritten,
          notesReadAfterReset: ended.notesReadAfterReset === undefined ? "first window" : ended.notesReadAfterReset,
          filesReread: ended.filesReread,
          commandsRerun: ended.commandsRerun,
          userRepeated: ended.userRepeated,
          peakTokens: ended.peakTokens ?? 0,
          turns: ended.turns
        })
      }
      yield* trace.info("boundary.commit", { from: from.id, to: next.id, toWindow: `w${next.ordinal}`, source, reason })
      // Told now that the boot is written or about to be: a boot dropped for a run that started meanwhile is never announced.
      yield* boots.tellIncomplete(next.id, boot)
      // At a hook, the notice waits until the boundary is on the branch (returned to Pi, it is committed after the hook).
      if (write._tag !== "AppendedNow") yield* Ref.set(pendingResetNotice, Option.some({ windowId: next.id, ordinal: next.ordinal, source }))
      // The rooms follow the new window from here (the notes of `ending` are committed for its id).
      yield* window.reset({ from: ending, to: next, source })
      if (write._tag === "AppendedNow") yield* announceReset(next.ordinal, source)
      return { _tag: "Committed", drafts } as BoundaryCommit
    })

  /** The reset notice, once the committed boundary of `window` is on the branch. */
  const resetNoticeDue = (window: CurrentWindow) =>
    Effect.gen(function*() {
      const pending = yield* Ref.get(pendingResetNotice)
      if (Option.isNone(pending) || pending.value.windowId !== window.id || !window.tail.some((e) => e._tag === "Continuation")) return
      yield* Ref.set(pendingResetNotice, Option.none())
      yield* announceReset(pending.value.ordinal, pending.value.source)
    })

  return { commit, reportBootFailure, resetNoticeDue }
})

export type Boundaries = Effect.Success<typeof makeBoundaries>
