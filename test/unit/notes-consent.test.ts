import { assert, describe, it } from "@effect/vitest"
import { changeDiff, decideChange, DiffLineChars, DiffLineLimit, plainLines } from "../../src/notes/consent.ts"

describe("the user's say over their notes", () => {
  const protection = { protectedHomes: ["user"] as const, readOnlyHomes: ["project"] as const }

  it("lets new notes into a protected home, asks before an existing one changes, refuses a read-only home, and judges both homes of a rename", () => {
    assert.deepStrictEqual(decideChange(protection, { home: "user", exists: false, kind: "write" }), { _tag: "Allow" })
    for (const kind of ["write", "edit", "rename", "retire"] as const) {
      assert.deepStrictEqual(decideChange(protection, { home: "user", exists: true, kind }), { _tag: "Ask", home: "user" })
    }
    assert.deepStrictEqual(decideChange(protection, { home: "project", exists: false, kind: "write" }), { _tag: "Refuse", home: "project" })
    assert.deepStrictEqual(decideChange(protection, { home: "session", exists: true, kind: "rename", toHome: "project" }), { _tag: "Refuse", home: "project" })
    assert.deepStrictEqual(decideChange(protection, { home: "session", exists: true, kind: "write" }), { _tag: "Allow" })
  })

  it("shows a change as the lines that differ, with a little context", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n")
    const after = before.replace("line 10", "line ten")
    assert.strictEqual(plainLines(changeDiff(before, after)), "  line 7\n  line 8\n  line 9\n- line 10\n+ line ten\n  line 11\n  line 12\n  line 13")
  })

  it("shows every control and bidi character as an escape, and bounds a diff in lines and in characters per line, saying what it left out", () => {
    const hostile = plainLines(changeDiff("- MY OWN RULE", "ok\r\u001b[2K\u001b[1A\u202Eevil\u2028x\u0085y"))
    assert.strictEqual(hostile, "- - MY OWN RULE\n+ ok\\r\\u{1B}[2K\\u{1B}[1A\\u{202E}evil\\u{2028}x\\u{85}y")
    const long = changeDiff("", "x".repeat(2_000_000))
    const added = long.find((line) => line.tone === "added")!
    assert.strictEqual(added.text, `${"x".repeat(DiffLineChars)}… (${2_000_000 - DiffLineChars} more characters)`)
    // An escape is never cut in two: the line stops before it.
    const escapes = changeDiff("", "\u001b".repeat(100)).find((line) => line.tone === "added")!.text
    assert.match(escapes, /^(\\u\{1B\})+… \(\d+ more characters\)$/)
    assert.ok(escapes.length <= DiffLineChars + 30)
    const many = changeDiff("", Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n"))
    assert.strictEqual(many.length, DiffLineLimit + 1)
    assert.deepStrictEqual(many.at(-1), { tone: "muted", text: `… ${501 - DiffLineLimit} more lines not shown (0 removed, ${501 - DiffLineLimit} added)` })
  })
})
