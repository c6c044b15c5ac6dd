import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { ReminderDraft } from "../../src/domain/budget.ts"
import type { BranchEntry } from "../../src/domain/entries.ts"
import type { PolicySettings } from "../../src/domain/thresholds.ts"
import * as BudgetLive from "../../src/layers/BudgetLive.ts"
import * as WindowLive from "../../src/layers/WindowLive.ts"
import { budgetToolHandlers } from "../../src/tools/budget.ts"
import { Budget } from "../../src/services/Budget.ts"
import { Thresholds } from "../../src/services/Thresholds.ts"
import { Window } from "../../src/services/Window.ts"
import { type FakeSessionOptions, makeFakeSession, settingsSessionOptions } from "../support/FakePiSession.ts"

// Default lines on a 200k window: guidance 40,960 left, warning 28,672, hard 16,384.
const left = (tokens: number) => ({ tokens: 200_000 - tokens, contextWindow: 200_000 })

let seq = 0
const message = (): BranchEntry => ({ _tag: "Message", id: `m${++seq}`, timestamp: "t", role: "assistant" })
const marker = (windowId: string): BranchEntry => ({ _tag: "Marker", id: `k${++seq}`, timestamp: "t", windowId })
/** What Pi appends for a committed draft, as `classifyEntry` sees it. */
const committed = (draft: ReminderDraft): BranchEntry => ({
  _tag: "Reminder",
  id: `r${++seq}`,
  timestamp: "t",
  kind: draft.customType === "pi-context/guidance" ? "guidance" : "warning",
  windowId: draft.details.windowId
})

/** The kinds of the hidden reminders a request carries. */
const carried = (observed: { readonly reminders: ReadonlyArray<ReminderDraft> }) => observed.reminders.map((d) => d.customType)

/** One extension instance: a Budget over an injected policy, and a fake Pi session. */
const instance = (policy: PolicySettings = {}, knobs: FakeSessionOptions = {}) =>
  Effect.gen(function*() {
    const session = makeFakeSession({ ...settingsSessionOptions, ...knobs })
    // Built in the test's scope: the budget hears the window room for as long as the test runs.
    const built = yield* Layer.build(BudgetLive.layerTestWith(policy))
    const services = { budget: Context.get(built, Budget), thresholds: Context.get(built, Thresholds), window: Context.get(built, Window) }
    const run = <A, R>(effect: Effect.Effect<A, never, R>) =>
      Effect.provide(effect, Layer.mergeAll(session.layer, Layer.succeed(Budget, services.budget), Layer.succeed(Thresholds, services.thresholds), WindowLive.layer))
    return { ...services, session, run }
  })

describe("Budget", () => {
  it.effect("guidance then warning, once each per window and in order", () =>
    Effect.gen(function*() {
      const { budget, run } = yield* instance()
      let branch: Array<BranchEntry> = [message()]
      const observe = (leftTokens: number) => run(budget.observeRequest({ windowId: "root", usage: left(leftTokens), branch }))
      const turnEnd = Effect.gen(function*() {
        const drafts = yield* budget.takeDrafts("root")
        branch = [...branch, message(), ...drafts.map(committed)]
        return drafts.map((d) => d.customType)
      })

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
      const { budget, run } = yield* instance()
      const branch = [message()]
      const above = yield* run(budget.observeRequest({ windowId: "root", usage: left(41_000), branch }))
      assert.deepStrictEqual(carried(above), [])
      const guidance = yield* run(budget.observeRequest({ windowId: "root", usage: left(40_000), branch }))
      assert.deepStrictEqual(carried(guidance), ["pi-context/guidance"])
      assert.include(guidance.reminders[0]!.content, "[pi-context] Context budget")
      const retry = yield* run(budget.observeRequest({ windowId: "root", usage: left(39_900), branch }))
      assert.deepStrictEqual(retry.staged, [])
      assert.deepStrictEqual(retry.reminders, guidance.reminders)
      const drafts = yield* budget.takeDrafts("root")
      assert.deepStrictEqual(drafts.map((d) => d.customType), ["pi-context/guidance"])
      const after = yield* run(budget.observeRequest({ windowId: "root", usage: left(39_000), branch: [...branch, ...drafts.map(committed)] }))
      assert.deepStrictEqual(carried(after), [])
    }))

  it.effect("a guidance not yet committed when the warning line is crossed is superseded by the warning, never delivered beside it", () =>
    Effect.gen(function*() {
      const { budget, run, session } = yield* instance()
      const branch = [message()]
      assert.deepStrictEqual(carried(yield* run(budget.observeRequest({ windowId: "root", usage: left(29_000), branch }))), ["pi-context/guidance"])
      const crossing = yield* run(budget.observeRequest({ windowId: "root", usage: left(28_000), branch }))
      assert.deepStrictEqual(crossing.staged, ["warning"])
      assert.deepStrictEqual(carried(crossing), ["pi-context/warning"])
      assert.include(crossing.reminders[0]!.content, "Final context warning")
      const drafts = yield* budget.takeDrafts("root")
      assert.deepStrictEqual(drafts.map((d) => d.customType), ["pi-context/warning"])
      const delivered = [...branch, ...drafts.map(committed)]
      yield* run(budget.noticesDue({ windowId: "root", branch: delivered }))
      assert.deepStrictEqual(session.notices.map((n) => n.message), ["pi-context: context almost full; final warning sent to the model with 11,616 tokens before the automatic reset."])
    }))

  it.effect("a drafted reminder is shaped for the turn_end composer", () =>
    Effect.gen(function*() {
      const { budget, run } = yield* instance()
      yield* run(budget.observeRequest({ windowId: "w7", usage: left(40_000), branch: [marker("w7")] }))
      const [draft] = yield* budget.takeDrafts("w7")
      assert.strictEqual(draft!.customType, "pi-context/guidance")
      assert.strictEqual(draft!.display, false)
      assert.deepStrictEqual(draft!.details, { windowId: "w7" })
      assert.include(draft!.content, "wipe_memory")
    }))

  it.effect("after a reload nothing committed is delivered or announced twice", () =>
    Effect.gen(function*() {
      const first = yield* instance()
      const branch: Array<BranchEntry> = [message()]
      yield* first.run(first.budget.observeRequest({ windowId: "root", usage: left(20_000), branch }))
      branch.push(...(yield* first.budget.takeDrafts("root")).map(committed))
      // A new extension instance over the same session file.
      const second = yield* instance()
      const observed = yield* second.run(second.budget.observeRequest({ windowId: "root", usage: left(19_000), branch }))
      assert.deepStrictEqual(observed.staged, [])
      assert.deepStrictEqual(observed.reminders, [])
      yield* second.run(second.budget.noticesDue({ windowId: "root", branch }))
      assert.deepStrictEqual(second.session.notices.map((notice) => notice.message), [])
    }))

  it.effect("a sibling branch does not inherit a reminder, and a new window starts over", () =>
    Effect.gen(function*() {
      const { budget, run } = yield* instance()
      const trunk = [message()]
      yield* run(budget.observeRequest({ windowId: "root", usage: left(40_000), branch: trunk }))
      const withGuidance = [...trunk, ...(yield* budget.takeDrafts("root")).map(committed)]
      const sibling = [...trunk, message()]
      assert.deepStrictEqual((yield* run(budget.observeRequest({ windowId: "root", usage: left(39_000), branch: withGuidance }))).staged, [])
      assert.deepStrictEqual((yield* run(budget.observeRequest({ windowId: "root", usage: left(39_000), branch: sibling }))).staged, ["guidance"])
      yield* budget.discard
      const next = [...withGuidance, marker("w2"), message()]
      assert.deepStrictEqual((yield* run(budget.observeRequest({ windowId: "w2", usage: left(39_000), branch: next }))).staged, ["guidance"])
    }))

  it.effect("an aborted turn commits nothing and the line fires again on the next request", () =>
    Effect.gen(function*() {
      const { budget, run } = yield* instance()
      const branch = [message()]
      assert.deepStrictEqual((yield* run(budget.observeRequest({ windowId: "root", usage: left(28_000), branch }))).staged, ["warning"])
      yield* budget.discard
      assert.deepStrictEqual(yield* budget.takeDrafts("root"), [])
      const again = yield* run(budget.observeRequest({ windowId: "root", usage: left(27_000), branch }))
      assert.deepStrictEqual(again.staged, ["warning"])
      assert.deepStrictEqual(carried(again), ["pi-context/warning"])
    }))

  it.effect("drafts of another window are discarded", () =>
    Effect.gen(function*() {
      const { budget, run } = yield* instance()
      yield* run(budget.observeRequest({ windowId: "w1", usage: left(40_000), branch: [marker("w1")] }))
      assert.deepStrictEqual(yield* budget.takeDrafts("w2"), [])
      assert.deepStrictEqual(yield* budget.takeDrafts("w1"), [])
      // Observing a new window drops the old window's drafts as well.
      yield* run(budget.observeRequest({ windowId: "w1", usage: left(40_000), branch: [marker("w1")] }))
      yield* run(budget.observeRequest({ windowId: "w2", usage: left(60_000), branch: [marker("w2")] }))
      assert.deepStrictEqual(yield* budget.takeDrafts("w1"), [])
    }))

  it.effect("a window the Window room opens starts with nothing staged: a reset's, or one the branch was read afresh for", () =>
    Effect.gen(function*() {
      const { budget, window, run } = yield* instance()
      const branch = [message()]
      yield* run(budget.observeRequest({ windowId: "root", usage: left(40_000), branch }))
      assert.isTrue(yield* budget.hasStaged)
      yield* run(Effect.gen(function*() {
        const from = yield* window.current
        yield* window.reset({ from, to: yield* window.nextWindow(from), source: "hard-line" })
      }))
      assert.isFalse(yield* budget.hasStaged)
      yield* run(budget.observeRequest({ windowId: "root", usage: left(28_000), branch }))
      assert.isTrue(yield* budget.hasStaged)
      yield* run(window.follow("tree"))
      assert.isFalse(yield* budget.hasStaged)
    }))

  it.effect("notices come only after the reminder is committed, once", () =>
    Effect.gen(function*() {
      const { budget, run, session } = yield* instance()
      const branch: Array<BranchEntry> = [message()]
      const shownNow = Effect.sync(() => session.notices.map((notice) => notice.message))
      yield* run(budget.observeRequest({ windowId: "root", usage: left(40_000), branch }))
      yield* run(budget.noticesDue({ windowId: "root", branch }))
      assert.deepStrictEqual(yield* shownNow, [])
      const drafts = yield* budget.takeDrafts("root")
      yield* run(budget.noticesDue({ windowId: "root", branch }))
      assert.deepStrictEqual(yield* shownNow, [])
      branch.push(...drafts.map(committed))
      yield* run(budget.noticesDue({ windowId: "root", branch }))
      yield* run(budget.noticesDue({ windowId: "root", branch }))
      const shown = yield* shownNow
      assert.strictEqual(shown.length, 1)
      assert.include(shown[0]!, "asked to write its notes")
    }))

  it.effect("the hard line is due at the reserve and only with automaticReset, whatever Pi's compaction.enabled says", () =>
    Effect.gen(function*() {
      const automatic = yield* instance({}, { settings: { compaction: { enabled: false } } })
      assert.isFalse(yield* automatic.run(automatic.budget.hardLineDue({ windowId: "root", usage: left(16_385) })))
      assert.isTrue(yield* automatic.run(automatic.budget.hardLineDue({ windowId: "root", usage: left(16_384) })))
      const warned = yield* automatic.run(automatic.budget.observeRequest({ windowId: "root", usage: left(28_000), branch: [] }))
      assert.deepStrictEqual(carried(warned), ["pi-context/warning"])
      const manual = yield* instance({ automaticReset: false })
      assert.isFalse(yield* manual.run(manual.budget.hardLineDue({ windowId: "root", usage: left(1_000) })))
      const manualWarning = yield* manual.run(manual.budget.observeRequest({ windowId: "root", usage: left(28_000), branch: [] }))
      assert.include(manualWarning.reminders[0]!.content, "before this window is full")
    }))

  it.effect("remaining is null when Pi cannot estimate, numbers otherwise", () =>
    Effect.gen(function*() {
      const { budget, run } = yield* instance()
      assert.deepStrictEqual(yield* run(budget.remaining({ usage: undefined })), { beforeWarning: null, beforeHard: null })
      assert.deepStrictEqual(yield* run(budget.remaining({ usage: { tokens: null, contextWindow: 200_000 } })), {
        beforeWarning: null,
        beforeHard: null
      })
      assert.deepStrictEqual(yield* run(budget.remaining({ usage: left(50_000) })), {
        beforeWarning: 50_000 - 28_672,
        beforeHard: 50_000 - 16_384
      })
    }))

  it.effect("status line and report follow the injected policy", () =>
    Effect.gen(function*() {
      const { budget, run } = yield* instance({ warningLine: 30_000 })
      assert.strictEqual(yield* budget.statusLine({ usage: left(76_000), windowOrdinal: 3 }), "pi-context · 62% · w3")
      const report = yield* run(budget.statusReport({ usage: left(76_000) }))
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
