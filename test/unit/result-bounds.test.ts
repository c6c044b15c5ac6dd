import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Result } from "effect"
import { listPage } from "../../src/history/listing.ts"
import { readPage } from "../../src/history/readPage.ts"
import { issueCode } from "../../src/history/issues.ts"
import { renderList, renderRead, renderSearch } from "../../src/history/render.ts"
import { searchPage } from "../../src/history/eventSearch.ts"
import { ToolResultByteLimit } from "../../src/kernel/protocol.ts"
import { textWindow, windowCollector } from "../../src/kernel/textWindow.ts"
import { ContinuationByteLimit, continuationCall, CutMark, fitParts, utf8Length } from "../../src/kernel/toolOutcome.ts"
import { historySession, syncIndex } from "../support/historySession.ts"

const text = fc.string({ unit: fc.constantFrom("a", "é", "日", "😀", "\n"), maxLength: 12_000 })

describe("results cut at the tool bound", () => {
  it("never cut the tail, which carries the cursor, and stay within the bound", () => {
    fc.assert(
      fc.property(text, fc.array(text, { maxLength: 6 }), fc.string({ maxLength: 300 }), fc.integer({ min: 600, max: 40_000 }), (head, bodies, tail, limit) => {
        const body = bodies.join("")
        const fitted = fitParts({ head, body, tail }, limit)
        assert.isAtMost(utf8Length(fitted), limit)
        assert.isTrue(fitted.endsWith(tail))
        if (utf8Length([head, body, tail].filter((part) => part !== "").join("\n")) > limit) assert.include(fitted, CutMark)
      }),
      { numRuns: 300 }
    )
  })

  it("keep the head whole when it fits, and cut the body with a visible mark", () => {
    const fitted = fitParts({ head: "header", body: "x".repeat(40_000), tail: "more: history_list {\"before\":17}" })
    assert.isTrue(fitted.startsWith("header\nxxx"))
    assert.isTrue(fitted.endsWith(`${CutMark}\nmore: history_list {"before":17}`))
    assert.strictEqual(utf8Length(fitted), ToolResultByteLimit)
  })

  it("continue with the arguments echoed when short, else with the cursor alone", () => {
    assert.strictEqual(continuationCall("notes_search", { query: "x" }, { cursor: "abc" }), "notes_search {\"query\":\"x\",\"cursor\":\"abc\"}")
    const long = continuationCall("notes_search", { query: "q".repeat(30_000) }, { cursor: "abc" })
    assert.strictEqual(long, "notes_search with the same arguments as this call, plus {\"cursor\":\"abc\"}")
    assert.isAtMost(utf8Length(long), ContinuationByteLimit)
  })
})

describe("windows cut in bytes say where they stopped", () => {
  it("stop at the byte budget on a code-point boundary, with the offset of the cut", () => {
    const window = textWindow("😀".repeat(100), 10, 50, 41)
    assert.strictEqual(window.text, "😀".repeat(10))
    assert.strictEqual(window.nextOffset, 20)
  })

  it("are the same taken over pieces of any size as over the whole text", () => {
    fc.assert(
      fc.property(text, fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 30 }), fc.integer({ min: -200, max: 3_000 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 900 }), (whole, cuts, offset, limit, maxBytes) => {
        const pieces: Array<string> = []
        const points = Array.from(whole)
        let at = 0
        for (const cut of cuts) {
          if (at >= points.length) break
          pieces.push(points.slice(at, at + cut).join(""))
          at += cut
        }
        pieces.push(points.slice(at).join(""))
        const collector = windowCollector(offset, limit, maxBytes, offset < 0 ? points.length : undefined)
        for (const piece of pieces) collector.push(piece)
        assert.deepStrictEqual(collector.finish(), textWindow(whole, offset, limit, maxBytes))
      }),
      { numRuns: 300 }
    )
  })
})

describe("history results keep their cursors whole", () => {
  it("history_search with a 20 KB query: the heading shows a part, the continuation is whole", () => {
    const needle = "needle ".repeat(3_000)
    const session = historySession()
    for (let i = 0; i < 15; i++) session.user(`${i} ${needle}`)
    const query = { query: needle, regex: false, limit: 10 }
    const page = searchPage(syncIndex(session), query, undefined)
    assert.isTrue(Result.isSuccess(page))
    if (Result.isFailure(page)) return
    const rendered = renderSearch(page.success, query)
    assert.isAtMost(utf8Length(rendered), ToolResultByteLimit)
    assert.isTrue(rendered.endsWith(`more: history_search with the same arguments as this call, plus {"before":${page.success.hits.at(-1)!.event.seq}}`))
    assert.notInclude(rendered, CutMark)
  })

  it("history_list in a window whose forged id is 30 KB long: the heading shows a part, the continuation is whole", () => {
    const id = `pcx:${"w".repeat(30_000)}`
    const session = historySession()
    session.marker(id)
    for (let i = 0; i < 30; i++) session.user(`message ${i}`)
    const query = { windowId: id, limit: 10 }
    const page = listPage(syncIndex(session), query)
    assert.isTrue(Result.isSuccess(page))
    if (Result.isFailure(page)) return
    const rendered = renderList(page.success, query)
    assert.isAtMost(utf8Length(rendered), ToolResultByteLimit)
    assert.include(rendered, `older: history_list with the same arguments as this call, plus {"before":${page.success.older}}`)
    assert.isTrue(rendered.endsWith("Read one event in full: history_read {\"seq\": N}."))
  })

  it("an unknown forged window id 30 KB long is refused in a short message", () => {
    const session = historySession()
    for (let i = 0; i < 3; i++) session.user(`message ${i}`)
    const page = listPage(syncIndex(session), { windowId: `pcx:${"w".repeat(30_000)}`, limit: 10 })
    assert.isTrue(Result.isFailure(page))
    if (Result.isSuccess(page)) return
    const code = issueCode(page.failure)
    const message = page.failure.message
    assert.strictEqual(code, "unknown_window")
    assert.isAtMost(utf8Length(message), 1_000)
  })

  it("history_read of wide characters: the page is cut in bytes where its continuation says", () => {
    const session = historySession()
    session.marker(`pcx:${"w".repeat(5_000)}`)
    session.user("😀".repeat(20_000))
    const index = syncIndex(session)
    const first = readPage(index, { seq: 1, limit: 8_000 })
    assert.isTrue(Result.isSuccess(first))
    if (Result.isFailure(first)) return
    const rendered = renderRead(first.success)
    assert.isAtMost(utf8Length(rendered), ToolResultByteLimit)
    assert.notInclude(rendered, CutMark)
    const next = first.success.page.nextOffset!
    assert.strictEqual(first.success.page.text, "😀".repeat(next))
    assert.isTrue(rendered.endsWith(`continue: history_read {"seq":1,"offset":${next}}`))
  })
})
