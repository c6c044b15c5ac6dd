import { assert, describe, it } from "@effect/vitest"
import { percentOf, resetChatLines } from "../../src/domain/window/resetShown.ts"
import { percentShown, usedPercent } from "../../src/domain/window/usage.ts"

describe("a window's share, as a user reads it", () => {
  it("is never clamped: a window that grew past its size (pi-context off, an overflow) reads as more than 100%", () => {
    assert.strictEqual(percentOf(37_389, 32_000), 117)
    assert.strictEqual(usedPercent({ tokens: 37_389, contextWindow: 32_000 } as Parameters<typeof usedPercent>[0]), 117)
    assert.strictEqual(percentShown({ tokens: 37_389, contextWindow: 32_000 } as Parameters<typeof percentShown>[0]), "117%")
    const { headline } = resetChatLines({ source: "overflow", shown: { ordinal: 3, peakTokens: 37_389, contextWindow: 32_000, notesIndexed: 2, checkpointed: false } })
    assert.include(headline, "w2 peaked at 117% (37,389 tokens)")
  })
})
