import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Option } from "effect"
import { addressMatcher, decodeListCursor, encodeListCursor, type ListCursor, pageMatching } from "../../src/notes/paging.ts"
import { unlimitedScan } from "../../src/kernel/scanDeadline.ts"

/** One page of every row after `cursor`, most recent first. */
const pageRecentFirst = (rows: ReadonlyArray<NoteRow>, cursor: ListCursor | undefined, limit: number) =>
  pageMatching(rows, cursor, limit, () => true, unlimitedScan)
import type { NoteRow } from "../../src/notes/snapshot.ts"

const rowsArbitrary = fc.uniqueArray(
  fc.record({
    address: fc.stringMatching(/^[a-z]{1,6}(\/[a-z]{1,4})?\.md$/),
    // Few distinct times, so many rows share one and the tie-break matters.
    updatedMs: fc.integer({ min: 0, max: 5 })
  }),
  { selector: (row) => row.address, maxLength: 80 }
).map((rows) => rows.map((row): NoteRow => ({ ...row, home: "session", bytes: 1, title: "" })))

const allPages = (rows: ReadonlyArray<NoteRow>, limit: number): ReadonlyArray<ReadonlyArray<NoteRow>> => {
  const pages: Array<ReadonlyArray<NoteRow>> = []
  let cursor: string | undefined
  do {
    const decoded = cursor === undefined ? undefined : Option.getOrThrow(decodeListCursor(cursor))
    const page = pageRecentFirst(rows, decoded, limit)
    pages.push(page.items)
    cursor = page.nextCursor
  } while (cursor !== undefined && pages.length <= rows.length + 1)
  return pages
}

describe("notes_list paging", () => {
  it("shows every note exactly once across pages, most recent first", () => {
    fc.assert(
      fc.property(rowsArbitrary, fc.integer({ min: 1, max: 12 }), (rows, limit) => {
        const pages = allPages(rows, limit)
        const seen = pages.flat().map((row) => row.address)
        assert.deepStrictEqual([...seen].sort(), rows.map((row) => row.address).sort())
        assert.strictEqual(new Set(seen).size, seen.length)
        const times = pages.flat().map((row) => row.updatedMs)
        assert.deepStrictEqual(times, [...times].sort((a, b) => b - a))
        for (const page of pages.slice(0, -1)) assert.strictEqual(page.length, limit)
      }),
      { numRuns: 300 }
    )
  })

  it("keeps its place when a note is written between two pages", () => {
    const rows: ReadonlyArray<NoteRow> = ["a", "b", "c", "d"].map((name, i) => ({ home: "session", address: `${name}.md`, updatedMs: 10 - i, bytes: 1, title: "" }))
    const first = pageRecentFirst(rows, undefined, 2)
    const newer: NoteRow = { home: "session", address: "new.md", updatedMs: 99, bytes: 1, title: "" }
    const second = pageRecentFirst([...rows, newer], Option.getOrThrow(decodeListCursor(first.nextCursor!)), 2)
    assert.deepStrictEqual(second.items.map((row) => row.address), ["c.md", "d.md"])
    assert.isUndefined(second.nextCursor)
  })

  it("refuses a cursor it did not make", () => {
    assert.isTrue(Option.isNone(decodeListCursor("not-a-cursor")))
    assert.isTrue(Option.isSome(decodeListCursor(encodeListCursor({ u: 1, a: "x.md" }))))
  })

  it("filters addresses by substring or glob", () => {
    assert.isTrue(addressMatcher("PLAN")("a/plan.md"))
    assert.isTrue(addressMatcher("@project/*")("@project/db.md"))
    assert.isFalse(addressMatcher("@project/*")("@project/a/db.md"))
    assert.isTrue(addressMatcher("@project/**")("@project/a/db.md"))
    assert.isTrue(addressMatcher("a?c")("abc.md"))
    assert.isFalse(addressMatcher("a.c")("abc.md"))
  })
})
