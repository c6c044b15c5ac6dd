import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { ambiguousLinesShown, applyEdits, describeEditRefusal } from "../../src/notes/edits.ts"

const note = "# Plan\n- step one\n- step two\n- step one\nend\n"

describe("exact-text edits", () => {
  it("replaces text that occurs exactly once", () => {
    const result = applyEdits(note, [{ oldText: "step two", newText: "step 2" }])
    assert.deepStrictEqual(result, Result.succeed("# Plan\n- step one\n- step 2\n- step one\nend\n"))
  })

  it("matches every edit against the original text, not the text after earlier edits", () => {
    const result = applyEdits("a b c", [{ oldText: "a", newText: "c" }, { oldText: "c", newText: "a" }])
    assert.deepStrictEqual(result, Result.succeed("c b a"))
  })

  it("applies edits given out of order", () => {
    const result = applyEdits("one two three", [{ oldText: "three", newText: "3" }, { oldText: "one", newText: "1" }])
    assert.deepStrictEqual(result, Result.succeed("1 two 3"))
  })

  it("refuses an ambiguous edit with its index and the lines of every match", () => {
    const result = applyEdits(note, [{ oldText: "end", newText: "fin" }, { oldText: "step one", newText: "x" }])
    assert.deepStrictEqual(result, Result.fail({ _tag: "Ambiguous", editIndex: 2, count: 2, lines: [2, 4], moreLines: false } as const))
    if (Result.isFailure(result)) {
      assert.strictEqual(
        describeEditRefusal(result.failure, 2),
        "edit 2 of 2: oldText occurs 2 times (lines 2, 4); include more surrounding text so it occurs exactly once. Nothing was changed."
      )
    }
  })

  it("counts overlapping occurrences as ambiguous", () => {
    const result = applyEdits("aaa", [{ oldText: "aa", newText: "b" }])
    assert.deepStrictEqual(result, Result.fail({ _tag: "Ambiguous", editIndex: 1, count: 2, lines: [1], moreLines: false } as const))
    if (Result.isFailure(result)) assert.include(describeEditRefusal(result.failure, 1), "oldText occurs 2 times (line 1);")
  })

  it("refuses a missing oldText and changes nothing", () => {
    const result = applyEdits(note, [{ oldText: "step two", newText: "ok" }, { oldText: "absent", newText: "x" }])
    assert.deepStrictEqual(result, Result.fail({ _tag: "NoMatch", editIndex: 2 } as const))
  })

  it("does not match LF text against CRLF text", () => {
    assert.isTrue(Result.isFailure(applyEdits("a\r\nb", [{ oldText: "a\nb", newText: "x" }])))
  })

  it("refuses an empty oldText", () => {
    assert.deepStrictEqual(applyEdits(note, [{ oldText: "", newText: "x" }]), Result.fail({ _tag: "EmptyOldText", editIndex: 1 } as const))
  })

  it("refuses overlapping edits, naming both", () => {
    const result = applyEdits("hello world", [{ oldText: "hello wo", newText: "x" }, { oldText: "world", newText: "y" }])
    assert.deepStrictEqual(result, Result.fail({ _tag: "Overlap", editIndex: 2, otherIndex: 1, line: 1 } as const))
  })

  it("refuses an ambiguous oldText among 100,000 lines naming the count and the first lines", () => {
    const checklist = Array.from({ length: 100_000 }, (_, i) => `- [ ] task ${i}\n`).join("")
    const result = applyEdits(checklist, [{ oldText: "- [ ]", newText: "- [x]" }])
    assert.deepStrictEqual(
      result,
      Result.fail({ _tag: "Ambiguous", editIndex: 1, count: 100_000, lines: Array.from({ length: ambiguousLinesShown }, (_, i) => i + 1), moreLines: true })
    )
    if (Result.isFailure(result)) {
      const sentence = describeEditRefusal(result.failure, 1)
      assert.include(sentence, "oldText occurs 100000 times (lines 1, 2, 3,")
      assert.include(sentence, ", 19, 20, and later lines); include more surrounding text")
    }
    // A unique oldText near the end of the same note applies.
    const edited = applyEdits(checklist, [{ oldText: "- [ ] task 99998\n", newText: "- [x] task 99998\n" }])
    assert.isTrue(Result.isSuccess(edited) && edited.success.endsWith("- [x] task 99998\n- [ ] task 99999\n"))
  })

  it("counts the overlapping occurrences of a long periodic oldText in one pass", () => {
    const result = applyEdits("a".repeat(200_000), [{ oldText: "a".repeat(100_000), newText: "b" }])
    assert.isTrue(Result.isFailure(result) && result.failure._tag === "Ambiguous" && result.failure.count === 100_001)
  })

  it("accepts no edits as the identity", () => {
    assert.deepStrictEqual(applyEdits(note, []), Result.succeed(note))
  })
})
