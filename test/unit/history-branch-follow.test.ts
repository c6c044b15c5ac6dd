import { assert, describe, it } from "@effect/vitest"
import { emptyBranchView, followSpans } from "../../src/history/branchView.ts"
import { buildIndex, extendIndex } from "../../src/history/sessionIndex.ts"
import type { RawEntry } from "../../src/kernel/entries.ts"
import { branchOfEntries, branchWindows, extendedSpans } from "../../src/window/walk.ts"
import { historySession } from "../support/historySession.ts"

/** A branch of three windows: the root, one opened by a marker that decodes, and one after a marker that does not (it opens none). */
const threeWindows = () => {
  const session = historySession("feedface-0000-4000")
  session.user("in root")
  session.assistant("root answer")
  session.marker("pcx:feedface:11111111")
  session.boot("pcx:feedface:11111111", "boot 1")
  session.user("in second")
  session.append({ type: "custom", customType: "pi-context/reset-marker", data: { windowId: 42 } })
  session.user("still second")
  session.marker("pcx:feedface:22222222")
  session.user("in third")
  return session
}

const shape = (spans: ReturnType<typeof branchWindows>) =>
  spans.map(({ id, ordinal, isRoot, startedAt, entries, tail, endedBy }) => ({ id, ordinal, isRoot, startedAt, ids: entries.map((e) => e.id), tags: tail.map((t) => t._tag), endedBy: endedBy?.id }))

describe("the branch's windows grown by appended entries (extendedSpans)", () => {
  it("from any prefix of the branch, grows into the windows read from the whole branch, keeping the ended windows' objects", () => {
    const session = threeWindows()
    const branch = session.branch()
    const whole = branchWindows(branch, session.sessionId)
    for (let cut = 0; cut <= branch.length; cut++) {
      const prefix = branchWindows(branch.slice(0, cut), session.sessionId)
      const grown = extendedSpans(prefix, branch.slice(cut))
      assert.deepStrictEqual(shape(grown), shape(whole), `cut at ${cut}`)
      for (let position = 0; position < prefix.length - 1; position++) assert.strictEqual(grown[position], prefix[position])
    }
    assert.strictEqual(extendedSpans(whole, []), whole)
  })
})

describe("the branch found among the session's entries (branchOfEntries)", () => {
  const entry = (id: string, parentId: string | null): RawEntry => ({ type: "message", id, parentId, timestamp: "2025-01-01T00:00:00.000Z" })
  const ids = (branch: ReadonlyArray<RawEntry> | undefined) => branch?.map((e) => e.id)

  it("is the chain from the root to the leaf, leaving out a side branch appended in between", () => {
    // a ← b ← c ← e, with d a sibling of c (a branch abandoned via /tree) appended before e.
    const entries = [entry("a", null), entry("b", "a"), entry("c", "b"), entry("d", "b"), entry("e", "c")]
    assert.deepStrictEqual(ids(branchOfEntries(entries, "e")), ["a", "b", "c", "e"])
    assert.deepStrictEqual(ids(branchOfEntries(entries, "d")), ["a", "b", "d"])
    assert.deepStrictEqual(ids(branchOfEntries(entries, null)), [])
  })

  it("is undefined (so Pi's walk is asked) when an entry comes before its parent or the leaf is not there", () => {
    assert.isUndefined(branchOfEntries([entry("b", "a"), entry("a", null)], "b"))
    assert.isUndefined(branchOfEntries([entry("a", null)], "z"))
  })
})

describe("the history branch view following the Window room's windows (followSpans)", () => {
  const seqsOf = (view: ReturnType<typeof emptyBranchView>) => ({ seqs: view.seqs, windows: view.windows.map((w) => [w.id, w.seqs]) })

  it("folds only the appended entries while the leaf goes on, and agrees with a view built at once", () => {
    const session = historySession()
    const view = emptyBranchView()
    session.user("one")
    const index = buildIndex(session.sessionId, session.entries)
    assert.isFalse(followSpans(view, index, branchWindows(session.branch(), session.sessionId)))
    let spans = branchWindows(session.branch(), session.sessionId)
    for (let round = 0; round < 3; round++) {
      const before = session.branch().length
      session.assistant(`answer ${round}`)
      if (round === 1) session.marker("pcx:01234567:aaaaaaaa")
      session.user(`next ${round}`)
      spans = extendedSpans(spans, session.branch().slice(before))
      extendIndex(index, session.entries)
      assert.isFalse(followSpans(view, index, spans))
    }
    const fresh = emptyBranchView()
    followSpans(fresh, index, branchWindows(session.branch(), session.sessionId))
    assert.deepStrictEqual(seqsOf(view), seqsOf(fresh))
    assert.deepStrictEqual(view.windows.map((w) => w.seqs.length), [4, 3])
  })

  it("drops what the leaf left when it jumps to another branch, and then holds only that branch's events", () => {
    const session = historySession()
    const first = session.user("first question")
    session.assistant("first answer")
    session.marker("pcx:01234567:aaaaaaaa")
    session.user("abandoned question")
    const view = emptyBranchView()
    followSpans(view, buildIndex(session.sessionId, session.entries), branchWindows(session.branch(), session.sessionId))
    assert.deepStrictEqual(view.seqs, [1, 2, 3])

    session.moveTo(first)
    session.assistant("second answer")
    const index = buildIndex(session.sessionId, session.entries)
    assert.isTrue(followSpans(view, index, branchWindows(session.branch(), session.sessionId)))
    assert.deepStrictEqual(seqsOf(view), { seqs: [1, 4], windows: [[view.windows[0]!.id, [1, 4]]] })
  })
})
