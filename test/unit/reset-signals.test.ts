import { assert, describe, it } from "@effect/vitest"
import { type SessionSignals, signalsReport } from "../../src/window/signals.ts"

const signals: SessionSignals = {
  windows: [
    { w: 1, end: "hard line", checkpointWritten: true, filesReread: 0, commandsRerun: 0, userRepeated: false, peakTokens: 20_000, turns: 12, tokensAvoided: 36_384, cacheReadTokens: 0 },
    { w: 2, end: "open", checkpointWritten: false, notesReadAfterReset: false, filesReread: 2, commandsRerun: 0, userRepeated: false, bootTokens: 600, peakTokens: 5_000, turns: 3, cacheReadTokens: 0 }
  ],
  totals: { resets: 1, compactionPoints: 1, checkpointed: 1, notesReadAfterReset: 0, filesReread: 2, commandsRerun: 0, userRepeated: 0, tokensAvoided: 36_384, cacheReadTokens: 0 }
}

describe("the reset report's text", () => {
  it("gives a line a window and the totals, pricing the summaries avoided at the model's input price when it has one", () => {
    const text = signalsReport(signals, { name: "anthropic/claude-sonnet-4-6", inputPrice: 3 })
    assert.include(text, "w1 (ended by hard line) · checkpointed · peak 20,000 · 12 turns")
    // With the window's size known, each line starts with a small bar of its peak.
    const barred = signalsReport(signals, { name: "m", contextWindow: 32_000 }).split("\n")
    assert.strictEqual(barred[1], "(each bar: how full the window got at its peak, of 32,000 tokens)")
    assert.strictEqual(barred[2], "██████░░░░ w1 (ended by hard line) · checkpointed · peak 20,000 · 12 turns")
    assert.isTrue(barred[3]!.startsWith("██░░░░░░░░ w2 (open)"))
    assert.notInclude(text, "each bar")
    assert.include(text, "w2 (open) · did not read its notes · re-read 2 files · boot 600 tokens · peak 5,000 · 3 turns")
    assert.include(
      text,
      "about 36,384 tokens of compaction summaries avoided in the 1 window that reached the point where Pi would have compacted " +
        "(the hard line, an overflow or a close-out; an estimate: each one's peak plus the summary budget; about $0.11 at anthropic/claude-sonnet-4-6's input price)"
    )
    assert.include(signalsReport(signals), "plus the summary budget)")
    // Counts take their noun's number: "1 command", never "1 commands".
    assert.include(text, "1 of 1 window checkpointed before their reset; 0 picked up from their notes; 2 files re-read, 0 commands rerun, 0 requests you repeated")
    const once = signalsReport({ ...signals, totals: { ...signals.totals, commandsRerun: 1, userRepeated: 1, filesReread: 1 } })
    assert.include(once, "1 file re-read, 1 command rerun, 1 request you repeated")
  })

  it("counts no compaction avoided for resets that came before Pi would have compacted, and says so", () => {
    const early: SessionSignals = {
      windows: [
        { ...signals.windows[0]!, end: "/wipe-memory", tokensAvoided: undefined } as never,
        signals.windows[1]!
      ],
      totals: { ...signals.totals, compactionPoints: 0, tokensAvoided: 0 }
    }
    const text = signalsReport(early, { name: "m", inputPrice: 3 })
    assert.include(text, "no compaction avoided: no window reached the point where Pi would have compacted")
    assert.notInclude(text, "$")
    const mixed = signalsReport({ ...signals, totals: { ...signals.totals, resets: 3 } })
    assert.include(mixed, "in the 1 window that reached the point where Pi would have compacted")
    assert.include(mixed, "the other 2 resets came before that point, where Pi would not have compacted yet")
    assert.include(signalsReport({ ...signals, totals: { ...signals.totals, resets: 2 } }), "; the other reset came before that point, where")
  })
})

describe("the reset signals", () => {
  let n = 0
  const entry = (message: unknown) => ({ type: "message", id: `e${++n}`, parentId: null, timestamp: "", message }) as never
  const user = (text: string) => entry({ role: "user", content: [{ type: "text", text }] })
  const reply = (cacheRead: number) => entry({ role: "assistant", content: [{ type: "text", text: "ok" }], stopReason: "stop", usage: { input: 10, output: 5, cacheRead, cacheWrite: 0, totalTokens: 15 + cacheRead } })
  const fact = (ordinal: number, open: boolean) =>
    ({ id: `w${ordinal}`, ordinal, isRoot: ordinal === 1, startedAt: 0, end: open ? { _tag: "Open" } : { _tag: "Reset", source: "command", at: 0 }, lastActivityAt: 0, turns: 1, peakTokens: 1_000, notesWritten: [], bootTokens: null }) as never

  it("counts the provider's cache reads per window, and a request the user makes again in a later window", async () => {
    const { sessionSignals } = await import("../../src/window/signals.ts")
    const signals = sessionSignals([{ entries: [user("fix it"), reply(300), reply(200)] }, { entries: [user("fix it"), reply(50)] }], [fact(1, false), fact(2, true)], 16_384)
    assert.deepStrictEqual(signals.windows.map((w) => w.cacheReadTokens), [500, 50])
    assert.deepStrictEqual(signals.windows.map((w) => w.userRepeated), [false, true])
    assert.strictEqual(signals.totals.cacheReadTokens, 550)
  })

  it("counts a compaction avoided only for a window that reached the point where Pi would have compacted", async () => {
    const { sessionSignals } = await import("../../src/window/signals.ts")
    const ended = (ordinal: number, source: string) =>
      ({ ...(fact(ordinal, false) as object), end: { _tag: "Reset", source, at: 0 } }) as never
    const sources = ["command", "tool", "hard-line", "close-out", "overflow", "unknown"]
    const signals = sessionSignals(
      [...sources.map(() => ({ entries: [reply(0)] })), { entries: [reply(0)] }],
      [...sources.map((source, i) => ended(i + 1, source)), fact(sources.length + 1, true)],
      16_384
    )
    assert.deepStrictEqual(signals.windows.map((w) => w.tokensAvoided), [undefined, undefined, 17_384, 17_384, 17_384, undefined, undefined])
    assert.strictEqual(signals.totals.tokensAvoided, 3 * 17_384)
    assert.strictEqual(signals.totals.compactionPoints, 3)
    assert.strictEqual(signals.totals.resets, 6)
  })

  it("says whether a window picked up from its notes only once its model made a call", async () => {
    const { sessionSignals } = await import("../../src/window/signals.ts")
    const call = (name: string, args: object) => entry({ role: "assistant", content: [{ type: "toolCall", id: `c${++n}`, name, arguments: args }], stopReason: "toolUse" })
    const first = { entries: [user("go"), reply(0)] }
    const boot = { type: "custom_message", id: `b${++n}`, parentId: null, timestamp: "", customType: "pi-context/boot", content: "Latest note: plan.md\n> next", display: false, details: { windowId: "w2" } } as never
    // The boot quoted the latest note and the model only answered: it did not visibly pick up, nor visibly not.
    const quiet = sessionSignals([first, { entries: [boot, user("and?"), reply(0)] }], [fact(1, false), fact(2, true)], 0)
    assert.isUndefined(quiet.windows[1]!.notesReadAfterReset)
    assert.strictEqual(quiet.totals.notesReadAfterReset, 0)
    // No reply yet: nothing to say.
    const opened = sessionSignals([first, { entries: [boot] }], [fact(1, false), { ...(fact(2, true) as object), turns: 0 } as never], 0)
    assert.isUndefined(opened.windows[1]!.notesReadAfterReset)
    // Once it makes a call, the quoted note counts as picked up.
    const worked = sessionSignals([first, { entries: [boot, call("bash", { command: "ls" })] }], [fact(1, false), fact(2, true)], 0)
    assert.isTrue(worked.windows[1]!.notesReadAfterReset)
    const read = sessionSignals([first, { entries: [call("notes_read", { address: "MAP" })] }], [fact(1, false), fact(2, true)], 0)
    assert.isTrue(read.windows[1]!.notesReadAfterReset)
    const other = sessionSignals([first, { entries: [call("bash", { command: "ls" })] }], [fact(1, false), fact(2, true)], 0)
    assert.isFalse(other.windows[1]!.notesReadAfterReset)
  })
})
