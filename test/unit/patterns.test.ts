import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Result } from "effect"
import { RE2JS } from "re2js"
import { foldCase } from "../../src/kernel/caseFold.ts"
import { compileQuery, InvalidPattern, maxRegexLength, regexPieceLength, type TextPattern } from "../../src/kernel/patterns.ts"
import type { ScanDeadline } from "../../src/kernel/scanDeadline.ts"

const compiled = (query: string, regex: boolean): TextPattern => {
  const result = compileQuery(query, regex, RE2JS)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

const refusal = (query: string): InvalidPattern => {
  const result = compileQuery(query, true, RE2JS)
  if (Result.isSuccess(result)) throw new Error(`${query} compiled`)
  return result.failure
}

describe("user patterns", () => {
  it("a regex without its engine (it did not load) is refused with what to do, never run as literal text", () => {
    const result = compileQuery("a+b", true, undefined)
    assert.isTrue(Result.isFailure(result) && result.failure.reason.includes("without regex: true"))
  })

  it("run the catastrophic regex (a+)+$ on RE2, with a correct answer", () => {
    const pattern = compiled("(a+)+$", true)
    assert.strictEqual(pattern.indexIn(`${"a".repeat(34)}!`), -1)
    assert.strictEqual(pattern.indexIn(`${"a".repeat(100_000)}!`), -1)
    assert.strictEqual(pattern.indexIn("xaaa"), 1)
  })

  it("find a literal of 40,000 characters, ignoring case", () => {
    const needle = "(needle) ".repeat(5_000).slice(0, 40_000)
    const pattern = compiled(needle, false)
    assert.strictEqual(pattern.indexIn(`head ${needle.toUpperCase()} tail`), 5)
    assert.strictEqual(pattern.indexIn(needle.slice(1)), -1)
  })

  it("fold case without moving an index, U+0130 included", () => {
    const text = "İstanbul ISTANBUL"
    assert.strictEqual(foldCase(text).length, text.length)
    assert.strictEqual(compiled("istanbul", false).indexIn(text), 0)
    assert.strictEqual(compiled("ıstanbul", false).indexIn("xıSTANBUL"), 1)
  })

  it("match a regex line by line: ^ and $ are the ends of a line, CRLF included", () => {
    const text = "alpha\r\nbeta gamma\r\ndelta"
    assert.strictEqual(compiled("^beta", true).indexIn(text), 7)
    assert.strictEqual(compiled("alpha$", true).indexIn(text), 0)
    assert.strictEqual(compiled("GAMMA$", true).indexIn(text), 12)
    assert.strictEqual(compiled("alpha\\s+beta", true).indexIn(text), -1)
    // JavaScript syntax is translated: named groups, \u escapes.
    assert.strictEqual(compiled("(?<word>d\\u0065lta)", true).indexIn(text), 19)
  })

  it("find a match deep in a line longer than a regex piece, and where it starts", () => {
    const line = `${"x".repeat(regexPieceLength + 5_000)}needle${"y".repeat(10_000)}`
    assert.strictEqual(compiled("ne+dle", true).indexIn(line), regexPieceLength + 5_000)
    assert.strictEqual(compiled("needle", false).indexIn(line), regexPieceLength + 5_000)
    // A regex that asserts an edge sees the whole line, never a cut: no false end of text there.
    assert.strictEqual(compiled("(a+)+$", true).indexIn(`${"a".repeat(regexPieceLength * 2)}!`), -1)
    // Found; in a line this long such a match is placed at the line's start.
    assert.strictEqual(compiled("y$", true).indexIn(`${line}\nnext`), 0)
    assert.strictEqual(compiled("y$", true).indexIn(`first\n${line}`), 6)
  })

  it("find what JavaScript's own engine finds, line by line and at the same index, on small inputs", () => {
    const atom = fc.constantFrom("a", "b", "A", ".", "[ab]", "[^a]", "\\b", "^", "$", "(a|b)", "(ab)", "(?:a|bb)")
    const quantifier = fc.constantFrom("", "", "*", "+", "?", "{1,2}", "*?")
    const regex = fc.array(fc.tuple(atom, quantifier).map(([a, q]) => (/^(\\b|\^|\$)$/.test(a) ? a : a + q)), { minLength: 1, maxLength: 5 })
      .map((parts) => parts.join(""))
    const text = fc.stringMatching(/^[abAB \n]{0,24}$/)
    const native = (source: string, input: string): number => {
      const re = new RegExp(source, "i")
      let start = 0
      for (const line of input.split("\n")) {
        const found = re.exec(line)
        if (found !== null) return start + found.index
        start += line.length + 1
      }
      return -1
    }
    fc.assert(fc.property(regex, text, (source, input) => compiled(source, true).indexIn(input) === native(source, input)), { numRuns: 3_000 })
    fc.assert(fc.property(text, text, (query, input) =>
      compiled(query, false).indexIn(input) === input.toLowerCase().indexOf(query.toLowerCase())
    ), { numRuns: 3_000 })
  })

  it("refuse what RE2 cannot run, saying what to do instead", () => {
    assert.include(refusal("(").message, "is invalid (missing closing ): `(`)")
    assert.include(refusal("(a)\\1").message, "RE2 has no backreferences or lookaround")
    assert.include(refusal("(?=a)b").message, "RE2 has no backreferences or lookaround")
    assert.include(refusal("x".repeat(maxRegexLength + 1)).message, "search for long text literally without regex: true")
    assert.include(refusal("[^x]{0,999}y").message, "is too complex")
    assert.strictEqual(refusal("(")._tag, "InvalidPattern")
    // A refusal quotes a long pattern cut short.
    assert.isBelow(refusal(`(${"y".repeat(10_000)}`).message.length, 400)
  })

  it("stop a regex scan on a spent budget at a line start, and resume from there", () => {
    const text = Array.from({ length: 1_000 }, (_, i) => (i === 900 ? "the hit" : `line ${i}`)).join("\n")
    let checks = 0
    const spentAfterOne: ScanDeadline = { spent: () => ++checks > 1 }
    const scan = compiled("hit$", true).scanner(text)
    const stopped = scan(0, spentAfterOne)
    assert.strictEqual(stopped._tag, "Stopped")
    if (stopped._tag !== "Stopped") return
    assert.isAbove(stopped.at, 0)
    assert.strictEqual(text[stopped.at - 1], "\n")
    assert.deepStrictEqual(scan(stopped.at), { _tag: "Match", index: text.indexOf("hit") })
  })
})
