import { describe, expect, it } from "vitest"
import { formatTokens } from "../../src/kernel/tokenCount.ts"

describe("formatTokens", () => {
  it("groups thousands as en-US does, rounded and never negative", () => {
    for (const tokens of [0, 7, 999, 1000, 12_288, 19_507.4, 123_456, 1_000_000, 1_048_576, 2 ** 31, 999.5, -12]) {
      expect(formatTokens(tokens)).toBe(Math.max(0, Math.round(tokens)).toLocaleString("en-US"))
    }
  })

  it("reads an unbounded window as infinity", () => {
    expect(formatTokens(Number.POSITIVE_INFINITY)).toBe("∞")
  })
})
