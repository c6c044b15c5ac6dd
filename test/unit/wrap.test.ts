import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { wrapLine } from "../../src/kernel/wrap.ts"

describe("wrapLine", () => {
  it("keeps a line that fits as it is, leading spaces included", () => {
    expect(wrapLine("  - retired plan.md", 80)).toEqual(["  - retired plan.md"])
    expect(wrapLine("  - retired plan.md and more words", 20)).toEqual(["  - retired plan.md", "and more words"])
  })

  it("breaks a path too long for a line after a separator, starting beside the words before it", () => {
    expect(wrapLine("trace: /a/bb/ccc/dddd.jsonl", 16)).toEqual(["trace: /a/bb/", "ccc/dddd.jsonl"])
    expect(wrapLine("C:\\Users\\me\\traces\\x.jsonl", 12)).toEqual(["C:\\Users\\me\\", "traces\\", "x.jsonl"])
  })

  it("cuts a word with no separator at the width, as the last resort", () => {
    expect(wrapLine("x".repeat(25), 10)).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(5)])
  })

  it("measures with the terminal's widths: a wide character takes two columns", () => {
    const wide = (char: string) => (char === "表" ? 2 : 1)
    expect(wrapLine("表表表 abc", 4, wide)).toEqual(["表表", "表", "abc"])
  })

  it("never passes the width and loses nothing but the spaces it breaks at", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "/", "\\", "é", "表", "😀"), maxLength: 200 })
    const columns = (char: string) => (char === "表" || char === "😀" ? 2 : 1)
    fc.assert(
      fc.property(text, fc.integer({ min: 2, max: 60 }), (line, width) => {
        const wrapped = wrapLine(line, width, columns)
        for (const piece of wrapped) expect(Array.from(piece).reduce((sum, char) => sum + columns(char), 0)).toBeLessThanOrEqual(width)
        expect(wrapped.join("").replace(/ /g, "")).toBe(line.replace(/ /g, ""))
      }),
      { numRuns: 1000, seed: 12 }
    )
  })
})
