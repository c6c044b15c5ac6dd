import { assert, describe, it } from "@effect/vitest"
import type { RawEntry } from "../../src/domain/entries.ts"
import { emptyBranchView, pathThroughAppended } from "../../src/domain/history/branchView.ts"

const entry = (id: string, parentId: string | null): RawEntry => ({ type: "message", id, parentId, timestamp: "2025-01-01T00:00:00.000Z" })
const ids = (path: ReadonlyArray<RawEntry> | undefined) => path?.map((e) => e.id)

describe("the path from the branch view's leaf through appended entries (pathThroughAppended)", () => {
  const view = emptyBranchView("s")

  it("on a first call, is the whole chain from the root, leaving out a side branch appended in between", () => {
    // a ← b ← c ← e, with d a sibling of c (a branch abandoned via /tree) appended before e.
    const appended = [entry("a", null), entry("b", "a"), entry("c", "b"), entry("d", "b"), entry("e", "c")]
    assert.deepStrictEqual(ids(pathThroughAppended(view, "e", appended)), ["a", "b", "c", "e"])
  })

  it("from a known leaf, is only the entries after it", () => {
    const known = { ...emptyBranchView("s"), leafId: "b" }
    assert.deepStrictEqual(ids(pathThroughAppended(known, "d", [entry("c", "b"), entry("d", "c")])), ["c", "d"])
  })

  it("is undefined when the new leaf does not descend from the known leaf through the appended entries", () => {
    const known = { ...emptyBranchView("s"), leafId: "b" }
    assert.isUndefined(pathThroughAppended(known, "y", [entry("x", "a"), entry("y", "x")]))
  })

  it("is undefined (so the branch itself is read) when an entry comes before its parent", () => {
    assert.isUndefined(pathThroughAppended(view, "b", [entry("b", "a"), entry("a", null)]))
  })

  it("is undefined when the leaf is not among the appended entries", () => {
    assert.isUndefined(pathThroughAppended(view, "z", [entry("a", null)]))
  })
})
