import { assert, describe, it } from "@effect/vitest"
import { type SessionSignals, signalsReport } from "../../src/window/signals.ts"

const signals: SessionSignals = {
  windows: [
    { w: 1, end: "wipe_memory", checkpointWritten: true, filesReread: 0, commandsRerun: 0, userRepeated: false, peakTokens: 20_000, turns: 12, tokensAvoided: 36_384, cacheReadTokens: 0 },
    { w: 2, end: "open", checkpointWritten: false, notesReadAfterReset: false, filesReread: 2, commandsRerun: 0, userRepeated: false, bootTokens: 600, peakTokens: 5_000, turns: 3, cacheReadTokens: 0 }
  ],
  totals: { resets: 1, checkpointed: 1, notesReadAfterReset: 0, filesReread: 2, commandsRerun: 0, userRepeated: 0, tokensAvoided: 36_384, cacheReadTokens: 0 }
}

describe("the reset report's text", () => {
  it("gives a line a window and the totals, pricing the summaries avoided at the model's input price when it has one", () => {
    const text = signalsReport(signals, { name: "anthropic/claude-sonnet-4-6", inputPrice: 3 })
    assert.include(text, "w1 (ended by wipe_memory) · checkpointed · peak 20,000 · 12 turns")
    // With the window's size known, each line starts with a small bar of its peak.
    const barred = signalsReport(signals, { name: "m", contextWindow: 32_000 }).split("\n")
    assert.strictEqual(barred[1], "██████░░░░ w1 (ended by wipe_memory) · checkpointed · peak 20,000 · 12 turns")
    assert.isTrue(barred[2]!.startsWith("██░░░░░░░░ w2 (open)"))
    assert.include(text, "w2 (open) · did not read its notes · re-read 2 files · boot 600 tokens · peak 5,000 · 3 turns")
    assert.include(text, "about 36,384 tokens of compaction summaries avoided (an estimate: each window's peak plus the summary budget; about $0.11 at anthropic/claude-sonnet-4-6's input price)")
    assert.include(signalsReport(signals), "plus the summary budget)")
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
    assert.strictEqual(signals.windows[0]!.tokensAvoided, 1_000 + 16_384)
    assert.isUndefined(signals.windows[1]!.tokensAvoided)
    assert.strictEqual(signals.totals.cacheReadTokens, 550)
  })
})
