import { Effect, Layer, Ref } from "effect"
import {
  committedReminders,
  decide,
  type ReminderDraft,
  reminderDraft,
  reminderFigures,
  type ReminderFigures,
  type ReminderKind,
  reminderNotice,
  reminderText,
  remainingBefore,
  statusReport,
  statusText
} from "../domain/budget.ts"
import type { BranchEntry } from "../domain/entries.ts"
import type { WindowUsage } from "../domain/window/usage.ts"
import type { PolicySettings } from "../domain/thresholds.ts"
import { Budget } from "../services/Budget.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"
import { Window } from "../services/Window.ts"
import * as ThresholdsLive from "./ThresholdsLive.ts"
import * as WindowLive from "./WindowLive.ts"

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

type Usage = WindowUsage | undefined

export const layerWithoutDependencies = Layer.effect(
  Budget,
  Effect.gen(function*() {
    const thresholds = yield* Thresholds
    const state = yield* Ref.make<State>({ staged: undefined, handedOver: [] })

    // Runs before every provider request: untraced, so it allocates no span.
    const observeRequest = Effect.fnUntraced(function*(input: {
      readonly windowId: string
      readonly usage: Usage
      readonly branch: ReadonlyArray<BranchEntry>
    }) {
      const policy = yield* thresholds.policy
      const usage = input.usage
      const committed = committedReminders(input.branch, input.windowId)
      return yield* Ref.modify(state, (current) => {
        // Drafts of another window are stale; a committed reminder outranks a pending copy.
        const kept = current.staged?.windowId === input.windowId
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
          return { kind, figures, draft: reminderDraft(kind, input.windowId, reminderText(figures)) }
        })
        const drafts = [...kept.filter((pending) => !decision.supersede.includes(pending.kind)), ...fresh]
        return [
          {
            staged: decision.stage,
            reminders: drafts.map((pending) => pending.draft),
            left: decision.left,
            hardLineDue: decision.hardLineDue,
            remaining: remainingBefore(usage, policy.lines),
            automaticReset: policy.automaticReset.value,
            warningLine: policy.lines.warning.value,
            guidanceLine: policy.lines.guidance.value,
            hardLine: policy.lines.hard.value
          },
          { ...current, staged: drafts.length === 0 ? undefined : { windowId: input.windowId, drafts } }
        ] as const
      })
    })

    const takeDrafts = Effect.fn("Budget.takeDrafts")(function*(windowId: string) {
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
    })

    const discard = Ref.update(state, (current) => ({ ...current, staged: undefined })).pipe(
      Effect.withSpan("Budget.discard")
    )

    const noticesDue = Effect.fn("Budget.noticesDue")(function*(input: {
      readonly windowId: string
      readonly branch: ReadonlyArray<BranchEntry>
    }) {
      const committed = committedReminders(input.branch, input.windowId)
      const due = yield* Ref.modify(state, (current): readonly [ReadonlyArray<Due>, State] => {
        const due: Array<Due> = []
        const waiting: Array<HandedOver> = []
        for (const handed of current.handedOver) {
          // A reminder of a window that is no longer active is never announced.
          if (handed.windowId !== input.windowId) continue
          if (committed[handed.kind]) due.push({ kind: handed.kind, message: reminderNotice(handed.figures) })
          else waiting.push(handed)
        }
        return [due, { ...current, handedOver: waiting }]
      })
      const session = yield* PiSession
      yield* Effect.forEach(due, (notice) => session.notify(notice.message, notice.kind === "warning" ? "warning" : "info"), {
        discard: true
      })
    })

    const hardLineDue = Effect.fn("Budget.hardLineDue")(function*(input: { readonly windowId: string; readonly usage: Usage }) {
      const policy = yield* thresholds.policy
      return decide({
        usage: input.usage,
        lines: policy.lines,
        automaticReset: policy.automaticReset.value,
        committed: { guidance: true, warning: true },
        staged: { guidance: true, warning: true }
      }).hardLineDue
    })

    const remaining = Effect.fn("Budget.remaining")(function*(input: { readonly usage: Usage }) {
      const policy = yield* thresholds.policy
      return remainingBefore(input.usage, policy.lines)
    })

    const statusLine = (input: { readonly usage: Usage; readonly windowOrdinal: number; readonly enabled?: boolean }) =>
      Effect.succeed(statusText(input))

    const report = Effect.fn("Budget.statusReport")(function*(input: { readonly usage: Usage }) {
      const policy = yield* thresholds.policy
      return statusReport(policy, input.usage)
    })

    // Drafts belong to the window they were staged in: a window the rooms now follow starts with none.
    yield* (yield* Window).subscribe((event) => (event._tag === "WindowOpened" ? discard : Effect.void))

    const hasStaged = Effect.map(Ref.get(state), (current) => (current.staged?.drafts.length ?? 0) > 0)

    return Budget.of({ observeRequest, takeDrafts, discard, hasStaged, noticesDue, hardLineDue, remaining, statusLine, statusReport: report })
  })
)

/** The budget with the policy it reads and the window room it follows. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(Layer.merge(ThresholdsLive.layer, WindowLive.layer)))

/** For tests: the budget over an injected policy, the policy and window services kept in the context. */
export const layerTestWith = (policy: PolicySettings): Layer.Layer<Budget | Thresholds | Window> =>
  layerWithoutDependencies.pipe(Layer.provideMerge(Layer.merge(ThresholdsLive.layerInjected(policy), WindowLive.layer)))

/** For tests: the budget over the default policy (shared with the other test layers that read it). */
export const layerTest: Layer.Layer<Budget | Thresholds | Window> = layerWithoutDependencies.pipe(
  Layer.provideMerge(Layer.merge(ThresholdsLive.layerTest, WindowLive.layer))
)
