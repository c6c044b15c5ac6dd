import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { readPage } from "../../src/history/readPage.ts"
import { issueCode } from "../../src/history/issues.ts"
import { renderRead, renderSearch } from "../../src/history/render.ts"
import { type SearchPage, type SearchQuery, searchPage } from "../../src/history/eventSearch.ts"
import type { SessionIndex } from "../../src/history/sessionIndex.ts"
import { ToolResultByteLimit } from "../../src/kernel/protocol.ts"
import type { ScanDeadline } from "../../src/kernel/scanDeadline.ts"
import { utf8Length } from "../../src/kernel/toolOutcome.ts"
import { historySession, syncIndex } from "../support/historySession.ts"
import { RE2JS } from "re2js"

const search = (index: SessionIndex, query: Partial<SearchQuery> & { readonly query: string }, scanBound?: number): SearchPage => {
  const result = searchPage(index, { regex: false, limit: 10, ...query }, RE2JS, scanBound)
  if (Result.isFailure(result)) throw new Error(`unexpected ${result.failure._tag}`)
  return result.success
}

const read = (index: SessionIndex, seq: number, offset?: number, limit?: number) => {
  const result = readPage(index, { seq, offset, limit })
  if (Result.isFailure(result)) throw new Error(`unexpected ${result.failure._tag}`)
  return result.success
}

describe("history_search", () => {
  const session = historySession()
  session.user("Remember the Zanzibar protocol for later")
  session.assistant("", [{ id: "c1", name: "bash", args: { command: "grep -r zanzibar src" } }])
  session.toolResult("c1", "bash", "src/auth.ts:12: // ZANZIBAR check")
  session.marker("pcx:01234567:00000002")
  session.user("new window 🙂🙂 then zanzibar again")
  session.assistant("noted")
  const index = syncIndex(session)

  it("matches literally and case-insensitively, newest first, with the offset to read from", () => {
    const page = search(index, { query: "zanzibar" })
    assert.deepStrictEqual(page.hits.map((hit) => hit.event.seq), [3, 2, 1])
    assert.isUndefined(page.more)
    const [newest] = page.hits
    // Two emoji before the match: the offset counts code points, not UTF-16 units.
    assert.strictEqual(newest!.offset, "new window 🙂🙂 then ".length - 2)
    assert.isTrue(read(index, 3, newest!.offset).page.text.startsWith("zanzibar again"))
    assert.include(newest!.line, "| zanzibar again | history_read {\"seq\":3,\"offset\":")
  })

  it("searches tool events by name, arguments, status and output", () => {
    assert.deepStrictEqual(search(index, { query: "status: ok" }).hits.map((hit) => hit.event.seq), [2])
    assert.deepStrictEqual(search(index, { query: "grep -r" }).hits.map((hit) => hit.event.seq), [2])
    const page = search(index, { query: "auth.ts:12" })
    assert.strictEqual(page.hits[0]!.line.split("| ")[1]!.slice(0, 10), "auth.ts:12")
  })

  it("filters by role, window and cursors, and continues where a full page stopped", () => {
    assert.deepStrictEqual(search(index, { query: "zanzibar", roles: ["user"] }).hits.map((hit) => hit.event.seq), [3, 1])
    assert.deepStrictEqual(search(index, { query: "zanzibar", windowId: "pcx:01234567:00000002" }).hits.map((hit) => hit.event.seq), [3])
    assert.deepStrictEqual(search(index, { query: "zanzibar", after: 1 }).hits.map((hit) => hit.event.seq), [2, 3])
    const first = search(index, { query: "zanzibar", limit: 1 })
    assert.deepStrictEqual(first.more, { before: 3 })
    const second = search(index, { query: "zanzibar", limit: 1, before: 3 })
    assert.deepStrictEqual(second.hits.map((hit) => hit.event.seq), [2])
    assert.include(renderSearch(first, { query: "zanzibar", regex: false, limit: 1 }), "more: history_search {\"query\":\"zanzibar\",\"before\":3}")
  })

  it("takes regular expressions, and names a bad one with bad_regex", () => {
    assert.deepStrictEqual(search(index, { query: "zan.ibar (protocol|check)", regex: true }).hits.map((hit) => hit.event.seq), [2, 1])
    const bad = searchPage(index, { query: "(unclosed", regex: true, limit: 5 }, RE2JS)
    assert.isTrue(Result.isFailure(bad))
    if (Result.isFailure(bad)) {
      assert.strictEqual(issueCode(bad.failure), "bad_regex")
      assert.include(bad.failure.message, "(unclosed")
    }
    // Literal search treats regex syntax as text.
    assert.deepStrictEqual(search(index, { query: "(unclosed" }).hits, [])
  })

  it("stops on the scan bound with a cursor that resumes the search", () => {
    // A bound of one unit lets each call scan a single event: the newest (#4) does not match.
    const page = search(index, { query: "zanzibar" }, 1)
    assert.deepStrictEqual(page.hits, [])
    assert.isTrue(page.scanBoundReached)
    assert.deepStrictEqual(page.more, { before: 4 })
    const resumed = search(index, { query: "zanzibar", before: 4 }, 1)
    assert.deepStrictEqual(resumed.hits.map((hit) => hit.event.seq), [3])
    assert.deepStrictEqual(resumed.more, { before: 3 })
  })

  it("answers the catastrophic regex (a+)+$ on RE2, line by line", () => {
    const bombs = historySession()
    bombs.user(`${"a".repeat(34)}!`)
    bombs.user("first line\nends with aaa")
    bombs.user(`${"a".repeat(34)}!\n${"a".repeat(100_000)}!`)
    const page = search(syncIndex(bombs), { query: "(a+)+$", regex: true })
    assert.deepStrictEqual(page.hits.map((hit) => [hit.event.seq, hit.offset]), [[2, "first line\nends with ".length]])
  })

  it("finds a literal query of 40,000 characters", () => {
    const needle = "[x](y)*".repeat(6_000).slice(0, 40_000)
    const long = historySession()
    long.user(`before ${needle} after`)
    long.user("unrelated")
    const query = { query: needle.toUpperCase(), regex: false, limit: 10 }
    const page = search(syncIndex(long), query)
    assert.deepStrictEqual(page.hits.map((hit) => [hit.event.seq, hit.offset]), [[1, 7]])
    const rendered = renderSearch(page, query)
    assert.isAtMost(utf8Length(rendered), ToolResultByteLimit)
    assert.include(rendered, "more: none (search finished)")
    // A continuation does not repeat a query too long to fit: it names only the cursor.
    long.user(needle)
    const first = search(syncIndex(long), { ...query, limit: 1 })
    assert.include(renderSearch(first, { ...query, limit: 1 }), `more: history_search with the same arguments as this call, plus {"before":3}`)
  })

  it("stops on a spent time budget after one event, with a cursor that resumes", () => {
    const spent: ScanDeadline = { spent: () => true }
    const page = searchPage(index, { query: "zanzibar", regex: false, limit: 10 }, undefined, undefined, spent)
    assert.isTrue(Result.isSuccess(page))
    if (Result.isFailure(page)) return
    assert.strictEqual(page.success.scanned, 1)
    assert.isTrue(page.success.scanBoundReached)
    assert.deepStrictEqual(page.success.more, { before: 4 })
    assert.include(renderSearch(page.success, { query: "zanzibar", regex: false, limit: 10 }), "per-call scan limit of size or time")
  })

  it("pages to exactly the hits of an unbounded search, wherever the budget stops it, inside events too", () => {
    const many = historySession()
    for (let n = 0; n < 30; n++) {
      many.user(Array.from({ length: 300 }, (_, i) => ((i + n) % 97 === 0 ? `hit ${n}-${i}` : `filler ${n}-${i}`)).join("\n"))
    }
    const manyIndex = syncIndex(many)
    const pageAll = (spentAfter: number | undefined) => {
      const found: Array<string> = []
      let cursor: { readonly before?: number; readonly after?: number } = {}
      for (let page = 0; page < 500; page++) {
        let checks = 0
        const budget: ScanDeadline = { spent: () => spentAfter !== undefined && ++checks > spentAfter }
        const result = searchPage(manyIndex, { query: "^hit \\d+-\\d+$", regex: true, limit: 4, ...cursor }, RE2JS, undefined, budget)
        if (Result.isFailure(result)) throw new Error(result.failure._tag)
        found.push(...result.success.hits.map((hit) => `${hit.event.seq}@${hit.offset}`))
        if (result.success.more === undefined) return found
        cursor = result.success.more
      }
      return found
    }
    const all = pageAll(undefined)
    assert.isAbove(all.length, 20)
    for (const spentAfter of [0, 1, 2, 3]) assert.deepStrictEqual(pageAll(spentAfter), all, `spent after ${spentAfter} checks`)
  })

  it("bounds a page of hits in huge multi-byte events to 32 KiB", () => {
    const big = historySession()
    for (let n = 0; n < 60; n++) big.user(`needle ${"語".repeat(3000)}`)
    const page = search(syncIndex(big), { query: "needle", limit: 50 })
    assert.isAtMost(utf8Length(renderSearch(page, { query: "needle", regex: false, limit: 50 })), ToolResultByteLimit)
  })
})

describe("history_read", () => {
  const text = "α🙂".repeat(10_000)
  const session = historySession()
  session.user(text)
  session.assistant("short")
  const index = syncIndex(session)

  it("pages through one event in code points until the end, each page within 32 KiB", () => {
    const pages: Array<string> = []
    let offset: number | undefined = 0
    while (offset !== undefined) {
      const page = read(index, 1, offset, 8000)
      assert.isAtMost(utf8Length(renderRead(page)), ToolResultByteLimit)
      pages.push(page.page.text)
      offset = page.page.nextOffset
    }
    assert.strictEqual(pages.length, 3)
    assert.strictEqual(pages.join(""), text)
    assert.include(renderRead(read(index, 1, 0, 100)), "continue: history_read {\"seq\":1,\"offset\":100}")
    assert.include(renderRead(read(index, 2)), "end of event")
  })

  it("answers not_found for a seq the session never had", () => {
    const result = readPage(index, { seq: 3 })
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) {
      assert.strictEqual(result.failure.code, "not_found")
      assert.include(result.failure.message, "seqs run from 1 to 2")
    }
  })
})
