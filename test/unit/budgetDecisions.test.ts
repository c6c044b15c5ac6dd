import { assert, describe, it } from "@effect/vitest"
import {
  closeOutText,
  committedReminders,
  decide,
  noReminders,
  remainingBefore,
  reminderDraft,
  reminderFigures,
  reminderNotice,
  reminderText,
  statusReport,
  statusText
} from "../../src/budget/reminders.ts"
import type { BranchEntry } from "../../src/kernel/entries.ts"
import { resolvePolicy } from "../../src/settings/policy.ts"

const model = { provider: "anthropic", id: "claude-sonnet-4", contextWindow: 200_000 }
const policy = resolvePolicy([], model) // lines: guidance 40960, warning 28672, hard 16384
const lines = policy.lines
const usageLeft = (left: number) => ({ tokens: 200_000 - left, contextWindow: 200_000 })

let seq = 0
const msg = (): BranchEntry => ({ _tag: "Message", id: `m${++seq}`, timestamp: "t", role: "user" })
const marker = (windowId: string): BranchEntry => ({ _tag: "Marker", id: `k${++seq}`, timestamp: "t", windowId })
const reminder = (kind: "guidance" | "warning", windowId: string): BranchEntry => ({
  _tag: "Reminder",
  id: `r${++seq}`,
  timestamp: "t",
  kind,
  windowId
})

const decideAt = (left: number, committed = noReminders, staged = noReminders, automaticReset = true) =>
  decide({ usage: usageLeft(left), lines, automaticReset, committed, staged })

describe("committedReminders", () => {
  it("finds reminders of the window after its marker", () => {
    const branch = [msg(), marker("w2"), msg(), reminder("guidance", "w2"), msg()]
    assert.deepStrictEqual(committedReminders(branch, "w2"), { guidance: true, warning: false })
  })

  it("does not look past the window's marker, so an earlier window's reminders do not count", () => {
    const branch = [reminder("guidance", "root"), reminder("warning", "root"), marker("w2"), msg()]
    assert.deepStrictEqual(committedReminders(branch, "w2"), noReminders)
    assert.deepStrictEqual(committedReminders(branch.slice(0, 2), "root"), { guidance: true, warning: true })
  })

  it("ignores a reminder recorded for another window", () => {
    assert.deepStrictEqual(committedReminders([marker("w2"), reminder("warning", "w1")], "w2"), noReminders)
  })
})

describe("decide", () => {
  it("stages nothing above the guidance line", () => {
    assert.deepStrictEqual(decideAt(41_000).stage, [])
  })

  it("stages guidance at the guidance line, once", () => {
    assert.deepStrictEqual(decideAt(40_960).stage, ["guidance"])
    assert.deepStrictEqual(decideAt(35_000, { guidance: true, warning: false }).stage, [])
    assert.deepStrictEqual(decideAt(35_000, noReminders, { guidance: true, warning: false }).stage, [])
  })

  it("stages the warning at the warning line, once, after a committed guidance", () => {
    assert.deepStrictEqual(decideAt(28_672, { guidance: true, warning: false }).stage, ["warning"])
    assert.deepStrictEqual(decideAt(20_000, { guidance: true, warning: true }).stage, [])
  })

  it("stages only the warning when one step jumps past both lines", () => {
    assert.deepStrictEqual(decideAt(20_000).stage, ["warning"])
  })

  it("stages the warning over a staged guidance, which it supersedes", () => {
    const decision = decideAt(20_000, noReminders, { guidance: true, warning: false })
    assert.deepStrictEqual(decision.stage, ["warning"])
    assert.deepStrictEqual(decision.supersede, ["guidance"])
    assert.deepStrictEqual(decideAt(35_000, noReminders, { guidance: true, warning: false }).supersede, [])
  })

  it("calls the hard line only when automatic reset is on", () => {
    assert.isTrue(decideAt(16_384, { guidance: true, warning: true }).hardLineDue)
    assert.isFalse(decideAt(16_385, { guidance: true, warning: true }).hardLineDue)
    assert.isFalse(decideAt(1_000, { guidance: true, warning: true }, noReminders, false).hardLineDue)
  })

  it("does nothing when Pi cannot estimate usage", () => {
    const decision = decide({ usage: { tokens: null, contextWindow: 200_000 }, lines, automaticReset: true, committed: noReminders, staged: noReminders })
    assert.deepStrictEqual(decision, { left: null, stage: [], supersede: [], hardLineDue: false })
  })
})

describe("remainingBefore", () => {
  it("counts down to each line and stops at zero", () => {
    assert.deepStrictEqual(remainingBefore(usageLeft(50_000), lines), { beforeWarning: 50_000 - 28_672, beforeHard: 50_000 - 16_384 })
    assert.deepStrictEqual(remainingBefore(usageLeft(20_000), lines), { beforeWarning: 0, beforeHard: 20_000 - 16_384 })
    assert.deepStrictEqual(remainingBefore(undefined, lines), { beforeWarning: null, beforeHard: null })
  })
})

describe("reminder text", () => {
  it("is neutral and actionable: dated figures, context_remaining for the current ones, notes tools, wipe_memory", () => {
    const guidance = reminderText(reminderFigures("guidance", 40_000, lines, true))
    assert.include(guidance, "when this reminder was sent, about 11,328 tokens were left before the final warning")
    assert.include(guidance, "and 23,616 before pi-context resets this window automatically (context_remaining gives the current figures)")
    for (const word of ["MAP", "notes_write", "notes_update", "wipe_memory"]) assert.include(guidance, word)
    const warning = reminderText(reminderFigures("warning", 28_000, lines, false))
    // Without automatic resets no line ends the window: the model is told what is left in the window itself.
    assert.include(warning, "when this warning was sent, about 28,000 tokens were left before this window is full")
    for (const word of ["MAP", "notes_write", "notes_update", "wipe_memory", "context_remaining"]) assert.include(warning, word)
  })

  it("past the hard line names the line and the last turn, never \"0 tokens\"", () => {
    const past = reminderText(reminderFigures("warning", 10_000, lines, true))
    assert.include(past, "the window was already past its hard line, which is at 16,384 tokens left, so pi-context resets it automatically when this turn ends")
    assert.notMatch(past, /\b0 tokens/)
    const closeOut = closeOutText(16_384)
    assert.include(closeOut, "this context window is past its hard line, which is at 16,384 tokens left, so this is its last turn")
    assert.notMatch(closeOut, /\b0 tokens/)
  })

  it("user notices carry the figures the model was given", () => {
    assert.strictEqual(
      reminderNotice(reminderFigures("guidance", 40_000, lines, true)),
      "pi-context: the model was asked to write its notes, with 11,328 tokens before the final warning and 23,616 before the automatic reset."
    )
    assert.strictEqual(
      reminderNotice(reminderFigures("warning", 20_000, lines, true)),
      "pi-context: context almost full; final warning sent to the model with 3,616 tokens before the automatic reset."
    )
    assert.strictEqual(
      reminderNotice(reminderFigures("warning", 10_000, lines, true)),
      "pi-context: context past the hard line, which is at 16,384 tokens left; final warning sent to the model, and this window resets automatically at the end of this turn or its close-out turn."
    )
    const manual = reminderNotice(reminderFigures("warning", 14_000, lines, false))
    assert.strictEqual(manual, "pi-context: context almost full; final warning sent to the model with 14,000 tokens left in the window (automatic reset is off).")
  })

  it("drafts a hidden custom message recording its window", () => {
    assert.deepStrictEqual(reminderDraft("warning", "w3", "x"), {
      type: "custom_message",
      customType: "pi-context/warning",
      content: "x",
      display: false,
      details: { windowId: "w3" }
    })
  })
})

describe("status", () => {
  it("shows usage and window at a glance", () => {
    assert.strictEqual(statusText({ usage: { tokens: 124_000, contextWindow: 200_000 }, windowOrdinal: 3 }), "pi-context · 62% · w3")
    assert.strictEqual(statusText({ usage: undefined, windowOrdinal: 1 }), "pi-context · ?% · w1")
    assert.strictEqual(statusText({ usage: undefined, windowOrdinal: 1, enabled: false }), "pi-context off")
  })

  it("marks a figure no reply has reported yet as an estimate, in the status line and the report alike", () => {
    const estimate = { tokens: 2_900, contextWindow: 32_000, estimated: true }
    assert.strictEqual(statusText({ usage: estimate, windowOrdinal: 2 }), "pi-context · ~9% · w2")
    const usageLine = statusReport(resolvePolicy([], model), estimate).find((line) => line.startsWith("usage:"))
    assert.strictEqual(usageLine, "usage: ~2,900 of 32,000 tokens (~9%), 29,100 left (an estimate until a reply in this window reports its usage)")
  })

  it("prints each line with its value and how it was derived", () => {
    const custom = resolvePolicy([
      { source: "global", settings: { compaction: { reserveTokens: 20000 } } },
      { source: "project", settings: { "pi-context": { models: { "claude-*": { warningLine: 40000 } } } } }
    ], model)
    const report = statusReport(custom, { tokens: 124_000, contextWindow: 200_000 })
    assert.include(report, "guidance line: 44,576 tokens left (default: hard line + 24,576)")
    assert.include(report, "warning line: 40,000 tokens left (set by a model override: pi-context.models[\"claude-*\"].warningLine)")
    assert.include(report, "hard line: 20,000 tokens left (default: Pi's reserve for the reply, set in the global settings.json: compaction.reserveTokens)")
    assert.include(report, "usage: 124,000 of 200,000 tokens (62%), 76,000 left")
    assert.include(report, "before warning: 36,000, before hard line: 56,000")
  })

  it("says when a default line is scaled to a small window, and when a set line was moved to fit", () => {
    const small = resolvePolicy([{ source: "global", settings: { "pi-context": { guidanceLine: 50_000 } } }], { ...model, contextWindow: 32_000 })
    const report = statusReport(small, undefined)
    assert.include(report, "warning line: 22,630 tokens left (default: hard line + 6,246 = 40% of the 15,616 above it)")
    assert.include(report, "guidance line: 25,753 tokens left (set in the global settings.json: pi-context.guidanceLine; moved to fit this window, see the notice below)")
    assert.include(report, "hard line: 16,384 tokens left (default: Pi's reserve for the reply, at Pi's default)")
  })
})
