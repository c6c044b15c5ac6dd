import { assert, describe, it } from "@effect/vitest"
import { dividerLines, percentOf, resetChatLines } from "../../src/window/resetShown.ts"
import { percentShown, usedPercent } from "../../src/window/usage.ts"

describe("a window's share, as a user reads it", () => {
  it("is never clamped: a window that grew past its size (pi-context off, an overflow) reads as more than 100%", () => {
    assert.strictEqual(percentOf(37_389, 32_000), 117)
    assert.strictEqual(usedPercent({ tokens: 37_389, contextWindow: 32_000 } as Parameters<typeof usedPercent>[0]), 117)
    assert.strictEqual(percentShown({ tokens: 37_389, contextWindow: 32_000 } as Parameters<typeof percentShown>[0]), "117%")
    const { headline } = resetChatLines({ source: "overflow", shown: { ordinal: 3, peakTokens: 37_389, contextWindow: 32_000, notesIndexed: 2, checkpointed: false } })
    assert.include(headline, "w2 peaked at 117% (37,389 tokens)")
  })
})

describe("the reset divider at a terminal's width", () => {
  it("breaks between phrases, never inside one; a phrase wider than the line gets one of its own", () => {
    const phrases = ["context reset: hard line reached", "w2 peaked at 75% (150,000 tokens)", "w3 starts from 4 notes", "no checkpoint"]
    assert.deepStrictEqual(resetChatLines({ source: "hard-line", shown: { ordinal: 3, peakTokens: 150_000, contextWindow: 200_000, notesIndexed: 4, checkpointed: false } }).phrases, phrases)
    assert.deepStrictEqual(dividerLines(phrases, 200), ["── context reset: hard line reached · w2 peaked at 75% (150,000 tokens) · w3 starts from 4 notes · no checkpoint ──"])
    assert.deepStrictEqual(dividerLines(phrases, 60), ["── context reset: hard line reached", "   w2 peaked at 75% (150,000 tokens)", "   w3 starts from 4 notes · no checkpoint ──"])
    for (const line of dividerLines(phrases, 40)) assert.isAtMost(line.length, 40)
  })
})

describe("the reset divider without a checkpoint", () => {
  it("says what the model had been told: guided and warned, it wrote no note", () => {
    const shown = { ordinal: 3, peakTokens: 30_000, contextWindow: 32_000, notesIndexed: 1, checkpointed: false }
    const last = (extra: object) => resetChatLines({ source: "hard-line", shown: { ...shown, ...extra } }).phrases.at(-1)
    assert.strictEqual(last({ guided: true, warned: true }), "no checkpoint, though guided and warned")
    assert.strictEqual(last({ guided: true, warned: false }), "no checkpoint, though guided")
    // A marker written before these were recorded reads as before.
    assert.strictEqual(last({}), "no checkpoint")
    assert.strictEqual(last({ checkpointed: true, guided: true, warned: true }), "checkpointed")
  })
})
