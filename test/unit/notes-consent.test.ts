import { assert, describe, it } from "@effect/vitest"
import { changeDiff, decideChange } from "../../src/notes/consent.ts"

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
    assert.strictEqual(changeDiff(before, after), "  line 7\n  line 8\n  line 9\n- line 10\n+ line ten\n  line 11\n  line 12\n  line 13")
  })
})
