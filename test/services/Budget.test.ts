import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { ReminderDraft } from "../../src/budget/reminders.ts"
import type { PolicySettings } from "../../src/settings/policy.ts"
import * as BudgetLive from "../../src/budget/BudgetLive.ts"
import { budgetToolHandlers } from "../../src/budget/budgetHandlers.ts"
import { Budget } from "../../src/budget/Budget.ts"
import type { PiSession } from "../../src/kernel/PiSession.ts"
import type { Thresholds } from "../../src/settings/Thresholds.ts"
import { Window } from "../../src/window/Window.ts"
import { type FakeSession, type FakeSessionOptions, makeFakeSession, settingsSessionOptions } from "../support/FakePiSession.ts"

// Default lines on a 200k window: guidance 40,960 left, warning 28,672, hard 16,384.

/** A provider request whose last reply reported its usage: the window has `leftTokens` left. */
const requestLeaving = (leftTokens: number) => [{ role: "assistant", usage: { totalTokens: 200_000 - leftTokens } }]

/** The kinds of the hidden reminders a request carries. */
const carried = (observed: { readonly reminders: ReadonlyArray<ReminderDraft> }) => observed.reminders.map((d) => d.customType)

let windows = 0
/** A reset marker on the fake session's branch: the Window room opens a new window there. */
const newWindow = (session: FakeSession) => session.marker(`pcx:budget:${(++windows).toString(16).padStart(8, "0")}`)

/**
 * One extension instance: a Budget over an injected policy and the Window
 * room it reads, built in the test's scope, over a fake Pi session (a new
 * one, or `session` for a reload over the same session).
 */
const instance = (policy: PolicySettings = {}, knobs: FakeSessionOptions = {}, existing?: FakeSession) =>
  Effect.gen(function*() {
    const session = existing ?? makeFakeSession({ ...settingsSessionOptions, ...knobs })
    const built = yield* Layer.build(BudgetLive.layerTestWith(policy))
    const budget = Context.get(built, Budget)
    const window = Context.get(built, Window)
    const run = <A, R>(effect: Effect.Effect<A, never, R>) =>
      effect.pipe(Effect.provide(built), Effect.provide(session.layer)) as Effect.Effect<A, never, Exclude<R, PiSession | Budget | Thresholds | Window>>
    const observe = (leftTokens: number) => run(budget.observeRequest(requestLeaving(leftTokens)))
    /** What Pi appends for the drafts `turn_end` hands it. */
    const commit = (drafts: ReadonlyArray<ReminderDraft>) => {
      for (const draft of drafts) session.append({ ...draft })
    }
    /** A turn's end: the drafts taken and committed, by kind. */
    const turnEnd = Effect.gen(function*() {
      const drafts = yield* run(budget.takeDrafts)
      session.assistant("done")
      commit(drafts)
      return drafts.map((d) => d.customType)
    })
    return { budget, window, session, run, observe, commit, turnEnd, takeDrafts: run(budget.takeDrafts) }
  })

describe("Budget", () => {
  it.effect("guidance then warning, once each per window and in order", () =>
    Effect.gen(function*() {
      const { observe, turnEnd, session } = yield* instance()
      session.assistant("start")
      assert.deepStrictEqual((yield* observe(50_000)).staged, [])
      assert.deepStrictEqual(yield* turnEnd, [])
      assert.deepStrictEqual((yield* observe(40_000)).staged, ["guidance"])
      assert.deepStrictEqual(yield* turnEnd, ["pi-context/guidance"])
      assert.deepStrictEqual((yield* observe(35_000)).staged, [])
      assert.deepStrictEqual(yield* turnEnd, [])
      const crossing = yield* observe(28_000)
      assert.deepStrictEqual(crossing.staged, ["warning"])
      assert.deepStrictEqual(yield* turnEnd, ["pi-context/warning"])
      assert.deepStrictEqual((yield* observe(20_000)).staged, [])
      assert.deepStrictEqual(yield* turnEnd, [])
    }))

  it.effect("each reminder is in the very request that crossed its line, and in its retry, until committed", () =>
    Effect.gen(function*() {
      const { observe, takeDrafts, commit, session } = yield* instance()
      session.assistant("start")
      assert.deepStrictEqual(carried(yield* observe(41_000)), [])
      const guidance = yield* observe(40_000)
      assert.deepStrictEqual(carried(guidance), ["pi-context/guidance"])
      assert.include(guidance.reminders[0]!.content, "[pi-context] Context budget")
      const retry = yield* observe(39_900)
      assert.deepStrictEqual(retry.staged, [])
      assert.deepStrictEqual(retry.reminders, guidance.reminders)
      const drafts = yield* takeDrafts
      assert.deepStrictEqual(drafts.map((d) => d.customType), ["pi-context/guidance"])
      commit(drafts)
      assert.deepStrictEqual(carried(yield* observe(39_000)), [])
    }))

  it.effect("a guidance not yet committed when the warning line is crossed is superseded by the warning, never delivered beside it", () =>
    Effect.gen(function*() {
      const { budget, observe, takeDrafts, commit, run, session } = yield* instance()
      session.assistant("start")
      assert.deepStrictEqual(carried(yield* observe(29_000)), ["pi-context/guidance"])
      const crossing = yield* observe(28_000)
      assert.deepStrictEqual(crossing.staged, ["warning"])
      assert.deepStrictEqual(carried(crossing), ["pi-context/warning"])
      assert.include(crossing.reminders[0]!.content, "Final context warning")
      const drafts = yield* takeDrafts
      assert.deepStrictEqual(drafts.map((d) => d.customType), ["pi-context/warning"])
      commit(drafts)
      yield* run(budget.noticesDue)
      assert.deepStrictEqual(session.notices.map((n) => n.message), ["pi-context: context almost full; final warning sent to the model with 11,616 tokens before the automatic reset."])
    }))

  it.effect("a drafted reminder is shaped for the turn_end composer, in the current window", () =>
    Effect.gen(function*() {
      const { observe, takeDrafts, session, window, run } = yield* instance()
      newWindow(session)
      yield* observe(40_000)
      const [draft] = yield* takeDrafts
      assert.strictEqual(draft!.customType, "pi-context/guidance")
      assert.strictEqual(draft!.display, false)
      assert.deepStrictEqual(draft!.details, { windowId: (yield* run(window.current)).id })
      assert.include(draft!.content, "wipe_memory")
    }))

  it.effect("after a reload nothing committed is delivered or announced twice", () =>
    Effect.gen(function*() {
      const first = yield* instance()
      first.session.assistant("start")
      yield* first.observe(20_000)
      first.commit(yield* first.takeDrafts)
      // A new extension instance over the same session file.
      const second = yield* instance({}, {}, first.session)
      const observed = yield* second.observe(19_000)
      assert.deepStrictEqual(observed.staged, [])
      assert.deepStrictEqual(observed.reminders, [])
      yield* second.run(second.budget.noticesDue)
      assert.deepStrictEqual(second.session.notices.map((notice) => notice.message), [])
    }))

  it.effect("a sibling branch does not inherit a reminder, and a new window starts over", () =>
    Effect.gen(function*() {
      const { budget, observe, takeDrafts, commit, session } = yield* instance()
      const trunk = session.assistant("start")
      yield* observe(40_000)
      commit(yield* takeDrafts)
      const withGuidance = session.leafId
      assert.deepStrictEqual((yield* observe(39_000)).staged, [])
      session.moveTo(trunk)
      session.user("another way")
      assert.deepStrictEqual((yield* observe(39_000)).staged, ["guidance"])
      yield* budget.discard
      session.moveTo(withGuidance)
      newWindow(session)
      session.assistant("fresh")
      assert.deepStrictEqual((yield* observe(39_000)).staged, ["guidance"])
    }))

  it.effect("an aborted turn commits nothing and the line fires again on the next request", () =>
    Effect.gen(function*() {
      const { budget, observe, takeDrafts, session } = yield* instance()
      session.assistant("start")
      assert.deepStrictEqual((yield* observe(28_000)).staged, ["warning"])
      yield* budget.discard
      assert.deepStrictEqual(yield* takeDrafts, [])
      const again = yield* observe(27_000)
      assert.deepStrictEqual(again.staged, ["warning"])
      assert.deepStrictEqual(carried(again), ["pi-context/warning"])
    }))

  it.effect("drafts of another window are discarded", () =>
    Effect.gen(function*() {
      const { budget, observe, takeDrafts, session } = yield* instance()
      newWindow(session)
      yield* observe(40_000)
      // The branch moved on to another window (no event told the budget): its drafts are not that window's.
      newWindow(session)
      assert.deepStrictEqual(yield* takeDrafts, [])
      assert.isFalse(yield* budget.hasStaged)
      // Observing a new window drops the old window's drafts as well.
      newWindow(session)
      yield* observe(40_000)
      newWindow(session)
      yield* observe(60_000)
      assert.isFalse(yield* budget.hasStaged)
    }))

  it.effect("a window the Window room opens starts with nothing staged: a reset's, or one the branch was read afresh for", () =>
    Effect.gen(function*() {
      const { budget, window, run, observe, session } = yield* instance()
      session.assistant("start")
      yield* observe(40_000)
      assert.isTrue(yield* budget.hasStaged)
      yield* run(Effect.gen(function*() {
        const from = yield* window.current
        yield* window.reset({ from, to: yield* window.nextWindow(from), source: "hard-line" })
      }))
      assert.isFalse(yield* budget.hasStaged)
      yield* observe(28_000)
      assert.isTrue(yield* budget.hasStaged)
      yield* run(window.follow("tree"))
      assert.isFalse(yield* budget.hasStaged)
    }))

  it.effect("notices come only after the reminder is committed, once", () =>
    Effect.gen(function*() {
      const { budget, observe, takeDrafts, commit, run, session } = yield* instance()
      session.assistant("start")
      const shownNow = Effect.sync(() => session.notices.map((notice) => notice.message))
      yield* observe(40_000)
      yield* run(budget.noticesDue)
      assert.deepStrictEqual(yield* shownNow, [])
      const drafts = yield* takeDrafts
      yield* run(budget.noticesDue)
      assert.deepStrictEqual(yield* shownNow, [])
      commit(drafts)
      yield* run(budget.noticesDue)
      yield* run(budget.noticesDue)
      const shown = yield* shownNow
      assert.strictEqual(shown.length, 1)
      assert.include(shown[0]!, "asked to write its notes")
    }))

  it.effect("the hard line is due at the reserve and only with automaticReset, whatever Pi's compaction.enabled says", () =>
    Effect.gen(function*() {
      const automatic = yield* instance({}, { settings: { compaction: { enabled: false } } })
      assert.isFalse((yield* automatic.run(automatic.budget.hardLine(requestLeaving(16_385)))).due)
      assert.deepStrictEqual(yield* automatic.run(automatic.budget.hardLine(requestLeaving(16_384))), { due: true, left: 16_384, line: 16_384 })
      assert.deepStrictEqual(carried(yield* automatic.observe(28_000)), ["pi-context/warning"])
      const manual = yield* instance({ automaticReset: false })
      assert.isFalse((yield* manual.run(manual.budget.hardLine(requestLeaving(1_000)))).due)
      const manualWarning = yield* manual.observe(28_000)
      assert.include(manualWarning.reminders[0]!.content, "before this window is full")
    }))

  it.effect("status line and report read the current window and follow the injected policy", () =>
    Effect.gen(function*() {
      const { budget, run, observe, session } = yield* instance({ warningLine: 30_000 })
      newWindow(session)
      newWindow(session)
      yield* observe(76_000)
      assert.deepStrictEqual(yield* run(budget.statusLine(true)), { text: "pi-context · 62% · w3", tone: "normal" })
      assert.deepStrictEqual(yield* run(budget.statusLine(false)), { text: "pi-context off", tone: "normal" })
      const report = yield* run(budget.statusReport)
      assert.include(report, "warning line: 30,000 tokens left (set by the injected policy: pi-context.warningLine)")
      assert.include(report, "hard line: 16,384 tokens left (default: Pi's reserve for the reply, at Pi's default)")
    }))
})

describe("context_remaining", () => {
  it.effect("answers in numbers before the warning and the hard line", () =>
    Effect.gen(function*() {
      const { run } = yield* instance({}, { usage: { tokens: 150_000, contextWindow: 200_000 } })
      const outcome = yield* run(budgetToolHandlers.context_remaining({}))
      assert.strictEqual(outcome._tag, "Ok")
      if (outcome._tag !== "Ok") return
      assert.deepStrictEqual(outcome.details, {
        beforeWarning: 50_000 - 28_672,
        beforeHard: 50_000 - 16_384,
        tokensLeft: 50_000,
        // Pi's figure in a window with no reply yet.
        estimated: true,
        contextWindow: 200_000,
        automaticReset: true
      })
      assert.include(outcome.text, "Before the final warning: 21,328 tokens")
    }))

  it.effect("answers null when Pi cannot estimate", () =>
    Effect.gen(function*() {
      const { run } = yield* instance({}, { usage: { tokens: null, contextWindow: 200_000 } })
      const outcome = yield* run(budgetToolHandlers.context_remaining({}))
      assert.strictEqual(outcome._tag, "Ok")
      if (outcome._tag !== "Ok") return
      const details = outcome.details as { beforeWarning: unknown; beforeHard: unknown }
      assert.deepStrictEqual([details.beforeWarning, details.beforeHard], [null, null])
    }))
})
