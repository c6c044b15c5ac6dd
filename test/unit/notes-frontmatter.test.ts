import { assert, describe, it } from "@effect/vitest"
import { noteTitle, parseNote, serializeNote, stampFrontmatter } from "../../src/notes/frontmatter.ts"

describe("note frontmatter", () => {
  it("keeps unknown keys verbatim and in order across a rewrite", () => {
    const text = "---\ncreated: 2024-01-01T00:00:00.000Z\ntags:\n  - a\n  - b\nupdated: 2024-01-02T00:00:00.000Z\nowner: \"me\"\n---\n# Body\n"
    const parsed = parseNote(text)
    assert.strictEqual(parsed.body, "# Body\n")
    assert.deepStrictEqual(parsed.frontmatter.otherLines, ["tags:", "  - a", "  - b", "owner: \"me\""])
    const stamped = stampFrontmatter(parsed.frontmatter, "2025-05-05T00:00:00.000Z", "session:s2")
    const rewritten = serializeNote({ frontmatter: stamped, body: parsed.body })
    assert.strictEqual(
      rewritten,
      "---\ncreated: 2024-01-01T00:00:00.000Z\nupdated: 2025-05-05T00:00:00.000Z\norigin: session:s2\ntags:\n  - a\n  - b\nowner: \"me\"\n---\n# Body\n"
    )
    assert.deepStrictEqual(parseNote(rewritten).frontmatter.otherLines, parsed.frontmatter.otherLines)
  })

  it("keeps the first origin", () => {
    const first = stampFrontmatter(undefined, "t1", "session:a")
    assert.strictEqual(stampFrontmatter(first, "t2", "session:b").origin, "session:a")
    assert.strictEqual(stampFrontmatter(first, "t2", "session:b").created, "t1")
  })

  it("treats text without a closed block as all body", () => {
    assert.strictEqual(parseNote("---\nno end").body, "---\nno end")
    assert.strictEqual(parseNote("--- title\nx").body, "--- title\nx")
    assert.strictEqual(parseNote("plain").body, "plain")
  })

  it("reads CRLF frontmatter", () => {
    const parsed = parseNote("---\r\ncreated: x\r\n---\r\nbody\r\n")
    assert.strictEqual(parsed.frontmatter.created, "x")
    assert.strictEqual(parsed.body, "body\r\n")
  })

  it("round-trips a body that itself contains a fence", () => {
    const body = "text\n---\nmore\n"
    const text = serializeNote({ frontmatter: stampFrontmatter(undefined, "t", "o"), body })
    assert.strictEqual(parseNote(text).body, body)
  })

  it("titles a note by its first heading, else its first line", () => {
    assert.strictEqual(noteTitle("\n\n# Title here\ntext"), "Title here")
    assert.strictEqual(noteTitle("first line\n## later heading"), "later heading")
    assert.strictEqual(noteTitle("\n  just text  \n"), "just text")
    assert.strictEqual(noteTitle("x".repeat(100)).length, 60)
  })
})
