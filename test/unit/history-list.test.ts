import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import type { HistoryRole } from "../../src/history/events.ts"
import { type ListPage, type ListQuery, listPage } from "../../src/history/listing.ts"
import { renderList } from "../../src/history/render.ts"
import { rowSeqs } from "../../src/history/rows.ts"
import type { SessionIndex } from "../../src/history/sessionIndex.ts"
import { ToolResultByteLimit } from "../../src/kernel/protocol.ts"
import { utf8Length } from "../../src/kernel/toolOutcome.ts"
import { roleAt } from "../../src/history/sessionIndex.ts"
import { historySession, syncIndex, type HistorySession } from "../support/historySession.ts"

const page = (index: SessionIndex, query: ListQuery): ListPage => {
  const result = listPage(index, query)
  if (Result.isFailure(result)) throw new Error(`unexpected ${result.failure._tag}`)
  return result.success
}

const covered = (listed: ListPage) => listed.rows.flatMap(rowSeqs)

/** user, assistant text, then `calls` read calls with their results, then assistant text. */
const turn = (session: HistorySession, n: number, calls: number) => {
  session.user(`question ${n}`)
  session.assistant(`thinking about ${n}`, Array.from({ length: calls }, (_, i) => ({ id: `c${n}-${i}`, name: i % 2 === 0 ? "read" : "bash" })))
  for (let i = 0; i < calls; i++) session.toolResult(`c${n}-${i}`, i % 2 === 0 ? "read" : "bash", `output ${n}-${i}`, i === 2)
  session.assistant(`answer ${n}`)
}

describe("history_list", () => {
  const session = historySession()
  for (let n = 0; n < 4; n++) turn(session, n, 3)
  const index = syncIndex(session)
  // Per turn: user, assistant, 3 tools, assistant = 6 events; seqs 1..24.

  it("shows the newest page by default, oldest first, with a cursor to older events", () => {
    const listed = page(index, { limit: 4 })
    assert.deepStrictEqual(covered(listed), [19, 20, 21, 22, 23, 24])
    assert.strictEqual(listed.older, 19)
    assert.strictEqual(listed.newer, undefined)
  })

  it("folds a run of tool events into one row that names the call expanding it", () => {
    const listed = page(index, { limit: 4 })
    const run = listed.rows.find((row) => row._tag === "ToolRun")
    assert.isDefined(run)
    assert.deepStrictEqual(run !== undefined && rowSeqs(run), [21, 22, 23])
    const line = listed.lines[listed.rows.indexOf(run!)]!
    assert.include(line, "#21–#23 3 tool events folded: read ×2, bash (1 error)")
    assert.include(line, "expand: history_list {\"roles\":[\"tool\"],\"after\":20,\"before\":24}")

    const expanded = page(index, { roles: ["tool"], after: 20, before: 24, limit: 20 })
    assert.deepStrictEqual(expanded.rows.map((row) => row._tag), ["Event", "Event", "Event"])
    assert.deepStrictEqual(covered(expanded), [21, 22, 23])
  })

  it("pages forward from an after cursor and back with before", () => {
    const forward = page(index, { after: 0, limit: 3 })
    assert.deepStrictEqual(covered(forward), [1, 2, 3, 4, 5])
    assert.strictEqual(forward.older, undefined)
    assert.strictEqual(forward.newer, 5)
    const back = page(index, { before: 19, limit: 2 })
    // Two rows: the folded run 15–17 and the answer 18.
    assert.deepStrictEqual(covered(back), [15, 16, 17, 18])
  })

  it("renders the cursors as the calls that continue, keeping the filters", () => {
    const text = renderList(page(index, { roles: ["user", "tool"], limit: 2 }), { roles: ["user", "tool"], limit: 2 })
    assert.include(text, "older: history_list {\"roles\":[\"user\",\"tool\"],\"before\":19}")
    assert.include(text, "newer: none")
  })

  it("answers unknown_window for a window that is not on the branch", () => {
    const result = listPage(index, { windowId: "pcx:nope:root", limit: 5 })
    assert.isTrue(Result.isFailure(result) && result.failure._tag === "UnknownWindow")
  })

  it("stays within 32 KiB with huge multi-byte events, and still continues", () => {
    const big = historySession()
    for (let n = 0; n < 120; n++) big.user("页".repeat(5000) + n)
    const bigIndex = syncIndex(big)
    let cursor: number | undefined
    const seen: Array<number> = []
    do {
      const listed = page(bigIndex, { before: cursor, limit: 100 })
      assert.isAtMost(utf8Length(renderList(listed, { before: cursor, limit: 100 })), ToolResultByteLimit)
      seen.unshift(...covered(listed))
      cursor = listed.older
    } while (cursor !== undefined)
    assert.deepStrictEqual(seen, Array.from({ length: 120 }, (_, i) => i + 1))
  })
})

type Op =
  | { readonly _tag: "turn"; readonly calls: number; readonly answered: boolean }
  | { readonly _tag: "bash" }
  | { readonly _tag: "reset" }
  | { readonly _tag: "branch"; readonly back: number }

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ _tag: fc.constant("turn" as const), calls: fc.nat(4), answered: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "bash" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "reset" as const }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("branch" as const), back: fc.integer({ min: 1, max: 8 }) }) }
)

const play = (ops: ReadonlyArray<Op>) => {
  const session = historySession()
  ops.forEach((op, n) => {
    switch (op._tag) {
      case "turn": {
        session.user(`q${n}`)
        const calls = Array.from({ length: op.calls }, (_, i) => ({ id: `c${n}-${i}`, name: `tool${i}` }))
        session.assistant(op.calls === 0 || n % 3 === 0 ? `a${n}` : "", calls)
        // The last call of an unanswered turn never gets a result.
        calls.forEach((call, i) => (op.answered || i < calls.length - 1) && session.toolResult(call.id, call.name, `out${n}`))
        break
      }
      case "bash":
        session.bash(`echo ${n}`, `${n}`, 0)
        break
      case "reset":
        session.marker(`pcx:01234567:${n.toString(16).padStart(8, "0")}`)
        session.boot(`pcx:01234567:${n.toString(16).padStart(8, "0")}`, `boot ${n}`)
        break
      case "branch": {
        const target = session.entries[Math.max(0, session.entries.length - 1 - op.back)]
        session.moveTo(target === undefined ? null : target.id)
        break
      }
    }
  })
  return session
}

const roleSets: ReadonlyArray<ReadonlyArray<HistoryRole> | undefined> = [undefined, ["tool"], ["user", "tool"], ["assistant", "context"], ["user"]]

describe("history_list paging (property)", () => {
  it("visits every event of a window exactly once, in either direction, and each folded row expands to itself", () => {
    fc.assert(
      fc.property(
        fc.array(opArbitrary, { minLength: 0, maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(...roleSets),
        fc.nat(),
        (ops, limit, roles, windowPick) => {
          const session = play(ops)
          // Built in two halves, so paging also runs over an incrementally extended index.
          const index = syncIndex(session)
          const windows = index.branch.windows
          const window = windows[windowPick % windows.length]!
          const windowId = windowPick % 3 === 0 ? undefined : window.id
          const scope = windowId === undefined ? index.branch.seqs : window.seqs
          const expected = scope.filter((seq) => roles === undefined || roles.includes(roleAt(index, seq)!))

          const backward: Array<number> = []
          let before: number | undefined
          for (let guard = 0; guard <= expected.length + 1; guard++) {
            const listed = page(index, { windowId, roles, before, limit })
            backward.unshift(...covered(listed))
            for (const row of listed.rows) {
              if (row._tag !== "ToolRun") continue
              const first = row.seqs[0]!
              const last = row.seqs[row.seqs.length - 1]!
              assert.deepStrictEqual(covered(page(index, { roles: ["tool"], after: first - 1, before: last + 1, limit: 100 })), [...row.seqs])
            }
            before = listed.older
            if (before === undefined) break
          }

          const forward: Array<number> = []
          let after: number | undefined = 0
          for (let guard = 0; guard <= expected.length + 1 && after !== undefined; guard++) {
            const listed = page(index, { windowId, roles, after, limit })
            forward.push(...covered(listed))
            after = listed.newer
          }

          assert.deepStrictEqual(backward, expected)
          assert.deepStrictEqual(forward, expected)
        }
      ),
      { numRuns: 300, seed: 20250501 }
    )
  })
})
