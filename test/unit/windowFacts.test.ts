import { assert, describe, it } from "@effect/vitest"
import { resetDrafts } from "../../src/reset/boundary.ts"
import type { RawEntry } from "../../src/kernel/entries.ts"
import { CustomType } from "../../src/kernel/protocol.ts"
import { branchWindows, extendedSpans } from "../../src/window/walk.ts"
import { factsOfSpans, windowFacts } from "../../src/window/windowFacts.ts"
import { rootWindowId } from "../../src/kernel/windowId.ts"

const sessionId = "019a0000-0000-7000-8000-00000000beef"
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString()

/** A branch built in order, one minute per entry, each the child of the one before. */
const branchOf = (...fields: ReadonlyArray<Record<string, unknown> & { readonly type: string }>): ReadonlyArray<RawEntry> =>
  fields.map((entry, i) => ({ ...entry, id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: at(i) }))

const user = (text: string) => ({ type: "message", message: { role: "user", content: text } })
const reply = (text: string, totalTokens: number) => ({
  type: "message",
  message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop", usage: { totalTokens } }
})
const noteResult = (toolName: string, address: string, isError = false) => ({
  type: "message",
  message: { role: "toolResult", toolName, toolCallId: "c", isError, content: [], details: isError ? { code: "locked" } : { address } }
})
/** A reset boundary as the lifecycle writes it: marker (with its source), a context edit (here one), boot, continuation. */
const boundary = (windowId: string, source: Parameters<typeof resetDrafts>[1], boot = "b".repeat(400)) =>
  resetDrafts(windowId, source, boot, undefined, undefined, ["e1"]).map((draft) => ({ ...draft }))
const rootBoot = { type: "custom_message", customType: CustomType.boot, content: "r".repeat(80), display: false, details: { windowId: rootWindowId(sessionId) } }

describe("windowFacts", () => {
  it("an empty branch has one open root window with no start", () => {
    const [root, ...rest] = windowFacts([], sessionId)
    assert.strictEqual(rest.length, 0)
    assert.deepStrictEqual(root, {
      id: rootWindowId(sessionId),
      ordinal: 1,
      isRoot: true,
      startedAt: undefined,
      end: { _tag: "Open" },
      lastActivityAt: undefined,
      turns: 0,
      peakTokens: null,
      notesWritten: [],
      bootTokens: null
    })
  })

  it("splits the branch at each marker, numbers the windows and says how each ended", () => {
    const branch = branchOf(
      rootBoot, // 0
      user("hi"), // 1
      reply("one", 1_200), // 2
      noteResult("notes_write", "session:MAP.md"), // 3
      reply("two", 3_400), // 4
      ...boundary("pcx:w2", "tool"), // 5 marker, 6 context edit, 7 boot, 8 continuation
      reply("three", 900), // 9
      noteResult("notes_update", "project:plan.md"), // 10
      noteResult("notes_update", "project:plan.md"), // 11
      noteResult("notes_write", "session:failed.md", true), // 12
      ...boundary("pcx:w3", "command", "c".repeat(40)), // 13 marker, 14 context edit, 15 boot, 16 continuation
      user("go on") // 17
    )
    const windows = windowFacts(branch, sessionId)
    assert.deepStrictEqual(windows.map((w) => [w.id, w.ordinal, w.isRoot]), [
      [rootWindowId(sessionId), 1, true],
      ["pcx:w2", 2, false],
      ["pcx:w3", 3, false]
    ])
    const [w1, w2, w3] = windows
    assert.deepStrictEqual(w1!.end, { _tag: "Reset", source: "tool", at: Date.parse(at(5)) })
    assert.deepStrictEqual(w2!.end, { _tag: "Reset", source: "command", at: Date.parse(at(13)) })
    assert.deepStrictEqual(w3!.end, { _tag: "Open" })
    assert.deepStrictEqual(windows.map((w) => w.startedAt), [Date.parse(at(0)), Date.parse(at(5)), Date.parse(at(13))])
    assert.deepStrictEqual(windows.map((w) => w.lastActivityAt), [Date.parse(at(5)), Date.parse(at(13)), Date.parse(at(17))])
    assert.deepStrictEqual(windows.map((w) => w.turns), [2, 1, 0])
    assert.deepStrictEqual(windows.map((w) => w.peakTokens), [3_400, 900, null])
    assert.deepStrictEqual(windows.map((w) => w.notesWritten), [["session:MAP.md"], ["project:plan.md"], []])
    assert.deepStrictEqual(windows.map((w) => w.bootTokens), [20, 100, 10])
  })

  it("counts the boot each window's requests start from: the root window's newest (a refresh), a reset window's first of its own", () => {
    const refreshed = { ...rootBoot, content: "r".repeat(200) }
    const duplicated = { type: "custom_message", customType: CustomType.boot, content: "d".repeat(800), display: false, details: { windowId: "pcx:w2" } }
    const windows = windowFacts(branchOf(rootBoot, refreshed, user("hi"), ...boundary("pcx:w2", "tool"), duplicated), sessionId)
    assert.deepStrictEqual(windows.map((w) => w.bootTokens), [50, 100])
  })

  it("a branch grown a piece at a time has the facts of the branch read at once; its ended windows keep their counts", () => {
    const branch = branchOf(
      rootBoot,
      user("hi"),
      reply("one", 1_200),
      noteResult("notes_write", "session:MAP.md"),
      ...boundary("pcx:w2", "tool"),
      reply("two", 3_400),
      noteResult("notes_update", "project:plan.md"),
      noteResult("notes_write", "session:MAP.md"),
      reply("three", 900),
      ...boundary("pcx:w3", "hard-line", "c".repeat(40)),
      noteResult("notes_update", "project:plan.md"),
      reply("four", 2_000)
    )
    const whole = factsOfSpans(branchWindows(branch, sessionId))
    for (let cut = 0; cut <= branch.length; cut++) {
      const before = branchWindows(branch.slice(0, cut), sessionId)
      const shownBefore = JSON.stringify(factsOfSpans(before))
      assert.deepStrictEqual(factsOfSpans(extendedSpans(before, branch.slice(cut))), whole, `grown from entry ${cut}`)
      // Growing counted on a copy: the spans read before the growth say what they said.
      assert.strictEqual(JSON.stringify(factsOfSpans(before)), shownBefore)
    }
  })

  it("a marker written before sources were recorded ends its window with an unknown source", () => {
    const branch = branchOf(user("hi"), { type: "custom", customType: CustomType.resetMarker, data: { windowId: "pcx:old" } })
    const [w1, w2] = windowFacts(branch, sessionId)
    assert.deepStrictEqual(w1!.end, { _tag: "Reset", source: "unknown", at: Date.parse(at(1)) })
    assert.strictEqual(w2!.id, "pcx:old")
  })

  it("the root id comes from the session id: a UUIDv7 keeps its random tail, not its timestamp", () => {
    assert.strictEqual(windowFacts([], "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000")[0]!.id, "pcx:eeeeffff0000:root")
  })

  it("a fork's root window gets the fork's id; a boot of another window is not this window's boot", () => {
    const forked = "019a0000-0000-7000-8000-0000000f0a1c"
    const [root] = windowFacts(branchOf(rootBoot, user("hi")), forked)
    assert.strictEqual(root!.id, rootWindowId(forked))
    assert.strictEqual(root!.bootTokens, null)
  })
})
