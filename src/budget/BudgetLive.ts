import { Effect, Layer, Ref } from "effect"
import {
  committedReminders,
  decide,
  type ReminderDraft,
  reminderDraft,
  reminderFigures,
  type ReminderFigures,
  type ReminderKind,
  carriedReminderNotice,
  reminderNotice,
  reminderText,
  statusReport,
  statusText,
  statusTone
} from "./reminders.ts"
import type { ProjectableMessage } from "../window/projection.ts"
import { reminderUsage, tokensLeft } from "../window/usage.ts"
import type { PolicySettings } from "../settings/policy.ts"
import { Budget } from "./Budget.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { Window, type WindowEvent, type WindowOpenReason } from "../window/Window.ts"
import * as ThresholdsLive from "../settings/ThresholdsLive.ts"
import * as WindowLive from "../window/WindowLive.ts"

interface Pending {
  readonly kind: ReminderKind
  readonly draft: ReminderDraft
  /** The figures its text was rendered from; its notice shows the same. */
  readonly figures: ReminderFigures
}

/** A reminder handed to `turn_end`, waiting to be seen committed before its notice. */
interface HandedOver {
  readonly windowId: string
  readonly kind: ReminderKind
  readonly figures: ReminderFigures
  /**
   * The reset of its window was committed in the same append (the reminder first): its notice is told in the new
   * window, `windowId` since, once that boundary is on the branch, saying which window it was sent in.
   */
  readonly sentIn?: number
}

/** A committed reminder's notice, due now. */
interface Due {
  readonly kind: ReminderKind
  readonly message: string
}

interface State {
  /** Drafts waiting for `turn_end`, all of one window. */
  readonly staged: { readonly windowId: string; readonly drafts: ReadonlyArray<Pending> } | undefined
  readonly handedOver: ReadonlyArray<HandedOver>
}

const isWindowOpenedByReset = (reason: WindowOpenReason): boolean => reason !== "session-start" && reason !== "tree"

export const layerWithoutDependencies = Layer.effect(
  Budget,
  Effect.gen(function*() {
    const thresholds = yield* Thresholds
    const windows = yield* Window
    const state = yield* Ref.make<State>({ staged: undefined, handedOver: [] })

    // Runs before every provider request: untraced, so it allocates no span.
    const observeRequest = Effect.fnUntraced(function*(messages: ReadonlyArray<ProjectableMessage>) {
      const policy = yield* thresholds.policy
      const window = yield* windows.current
      const usage = reminderUsage(yield* windows.measureRequest(window, messages), window)
      const committed = committedReminders(window.tail, window.id)
      return yield* Ref.modify(state, (current) => {
        // Drafts of another window are stale; a committed reminder outranks a pending copy.
        const kept = current.staged?.windowId === window.id
          ? current.staged.drafts.filter((pending) => !committed[pending.kind])
          : []
        // Reminders handed to `turn_end` are not counted: Pi appends them before the next request, and a
        // sibling branch reached by /tree (same window id, no reminder) must get its own.
        const isPending = (kind: ReminderKind) => kept.some((p) => p.kind === kind)
        const decision = decide({
          usage,
          lines: policy.lines,
          automaticReset: policy.automaticReset.value,
          committed,
          staged: { guidance: isPending("guidance"), warning: isPending("warning") }
        })
        const fresh = decision.left === null ? [] : decision.stage.map((kind): Pending => {
          const figures = reminderFigures(kind, decision.left!, policy.lines, policy.automaticReset.value)
          return { kind, figures, draft: reminderDraft(kind, window.id, reminderText(figures)) }
        })
        const drafts = [...kept.filter((pending) => !decision.supersede.includes(pending.kind)), ...fresh]
        return [
          {
            staged: decision.stage,
            reminders: drafts.map((pending) => pending.draft),
            left: decision.left
          },
          { ...current, staged: drafts.length === 0 ? undefined : { windowId: window.id, drafts } }
        ] as const
      })
    })

    const takeDrafts = Effect.gen(function*() {
      const windowId = (yield* windows.current).id
      return yield* Ref.modify(state, (current): readonly [ReadonlyArray<ReminderDraft>, State] => {
        if (current.staged === undefined) return [[], current]
        if (current.staged.windowId !== windowId) return [[], { ...current, staged: undefined }]
        const drafts = current.staged.drafts
        return [drafts.map((pending) => pending.draft), {
          staged: undefined,
          handedOver: [
            ...current.handedOver.filter((h) => !drafts.some((d) => d.kind === h.kind && h.windowId === windowId)),
            ...drafts.map(({ kind, figures }) => ({ windowId, kind, figures }))
          ]
        }]
      })
    }).pipe(Effect.withSpan("Budget.takeDrafts"))

    const discard = Ref.update(state, (current) => ({ ...current, staged: undefined })).pipe(
      Effect.withSpan("Budget.discard")
    )

    const noticesDue = Effect.gen(function*() {
      const window = yield* windows.current
      const committed = committedReminders(window.tail, window.id)
      const due = yield* Ref.modify(state, (current): readonly [ReadonlyArray<Due>, State] => {
        const due: Array<Due> = []
        const waiting: Array<HandedOver> = []
        for (const handed of current.handedOver) {
          // A reminder of a window that is no longer active is never announced.
          if (handed.windowId !== window.id) continue
          if (handed.sentIn !== undefined) {
            // Pi appends the reminder and the reset's boundary together: the continuation on the branch says both are.
            if (window.tail.some((entry) => entry._tag === "Continuation")) {
              due.push({ kind: handed.kind, message: carriedReminderNotice(handed.figures, handed.sentIn) })
            } else waiting.push(handed)
          } else if (committed[handed.kind]) due.push({ kind: handed.kind, message: reminderNotice(handed.figures) })
          else waiting.push(handed)
        }
        return [due, { ...current, handedOver: waiting }]
      })
      const session = yield* PiSession
      yield* Effect.forEach(due, (notice) => session.notify(notice.message, notice.kind === "warning" ? "warning" : "info"), {
        discard: true
      })
    }).pipe(Effect.withSpan("Budget.noticesDue"))

    const hardLine = Effect.fn("Budget.hardLine")(function*(messages: ReadonlyArray<ProjectableMessage> | undefined) {
      const policy = yield* thresholds.policy
      const usage = messages === undefined ? yield* windows.usage : yield* windows.measureRequest(yield* windows.current, messages)
      const due = decide({
        usage,
        lines: policy.lines,
        automaticReset: policy.automaticReset.value,
        committed: { guidance: true, warning: true },
        staged: { guidance: true, warning: true }
      }).hardLineDue
      return { due, left: tokensLeft(usage), line: policy.lines.hard.value }
    })

    const statusLine = (enabled: boolean) =>
      Effect.gen(function*() {
        const window = yield* windows.current
        const usage = yield* windows.usage
        const tone = enabled ? statusTone(usage, (yield* thresholds.policy).lines) : "normal"
        return { text: statusText({ usage, windowOrdinal: window.ordinal, enabled }), tone }
      })

    const report = Effect.gen(function*() {
      return statusReport(yield* thresholds.policy, yield* windows.usage)
    }).pipe(Effect.withSpan("Budget.statusReport"))

    /**
     * A reset opened `event`'s window: the reminders handed over in the window it ended and not yet seen committed
     * there were handed in this turn, whose append carries the boundary too, so their notices are told in the new
     * window rather than lost with the old one. Any other opening (start, /tree) is another branch: they go.
     */
    const carryAcrossReset = (event: Extract<WindowEvent, { _tag: "WindowOpened" }>) =>
      Ref.update(state, (current) => ({
        staged: undefined,
        handedOver: current.handedOver.flatMap((handed): ReadonlyArray<HandedOver> =>
          handed.windowId === event.id
            ? [handed]
            : isWindowOpenedByReset(event.reason) && handed.sentIn === undefined
            ? [{ ...handed, windowId: event.id, sentIn: event.ordinal - 1 }]
            : [])
      }))

    // Drafts belong to the window they were staged in: a window the rooms now follow starts with none.
    yield* (yield* Window).subscribe((event) => (event._tag === "WindowOpened" ? carryAcrossReset(event) : Effect.void))

    const hasStaged = Effect.map(Ref.get(state), (current) => (current.staged?.drafts.length ?? 0) > 0)

    return Budget.of({ observeRequest, takeDrafts, discard, hasStaged, noticesDue, hardLine, statusLine, statusReport: report })
  })
)

/** The budget with the policy it reads and the window room it follows. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(Layer.merge(ThresholdsLive.layer, WindowLive.layer)))

/** For tests: the budget over an injected policy, the policy and window services kept in the context (the window reads that policy too). */
export const layerTestWith = (policy: PolicySettings): Layer.Layer<Budget | Thresholds | Window> =>
  layerWithoutDependencies.pipe(Layer.provideMerge(WindowLive.layerWithoutDependencies), Layer.provideMerge(ThresholdsLive.layerInjected(policy)))

/** For tests: the budget over the default policy (shared with the other test layers that read it). */
export const layerTest: Layer.Layer<Budget | Thresholds | Window> = layerWithoutDependencies.pipe(Layer.provideMerge(WindowLive.layerTest))
