import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Fiber, FileSystem } from "effect"
import { TestClock } from "effect/testing"
import { ToolName, ToolResultByteLimit } from "../../src/kernel/protocol.ts"
import { ok, type ToolOutcome, utf8Length } from "../../src/kernel/toolOutcome.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import { CurrentScanDeadline } from "../../src/kernel/CurrentScanDeadline.ts"
import { notesToolHandlers } from "../../src/notes/notesHandlers.ts"
import { ToolTimeLimits, withTimeLimit } from "../../src/kernel/timeLimit.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"

const storeLayer = NotesHomesLive.layerTest

const session = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "pi-hostile-tools-" })
  const fake = makeFakeSession({
    sessionId: "hostile-session",
    cwd: root,
    settings: { "pi-context": { notesRoot: root } },
    model: { provider: "test", id: "faux", contextWindow: 100_000 }
  })
  const call = (tool: keyof typeof notesToolHandlers, params: unknown) => Effect.provide(notesToolHandlers[tool](params), fake.layer)
  return { call }
})

const text = (outcome: ToolOutcome): string => outcome.text
const code = (outcome: ToolOutcome): string => (outcome._tag === "Failed" ? outcome.code : "ok")

layer(storeLayer)("hostile input to the notes tools", (it) => {
  it.effect("notes_search answers the catastrophic regex (a+)+$ on RE2, and refuses a backreference clearly", () =>
    Effect.gen(function*() {
      const { call } = yield* session
      yield* call("notes_write", { address: "bombs", content: `${"a".repeat(34)}!\nends with aaa\n${"a".repeat(100_000)}!\n` })
      const found = yield* call("notes_search", { query: "(a+)+$", regex: true })
      assert.strictEqual(code(found), "ok", text(found))
      assert.include(text(found), "- bombs.md:2 (offset 36): ends with aaa")
      assert.notInclude(text(found), "bombs.md:1 ")
      assert.notInclude(text(found), "bombs.md:3 ")
      const refused = yield* call("notes_search", { query: "(a)\\1", regex: true })
      assert.strictEqual(code(refused), "bad_regex")
      assert.include(text(refused), "RE2 has no backreferences or lookaround")
    }))

  it.effect("notes_search finds a literal query of 40,000 characters and says how to continue", () =>
    Effect.gen(function*() {
      const { call } = yield* session
      const needle = "(x)[y]*".repeat(6_000).slice(0, 40_000)
      for (const name of ["a", "b"]) yield* call("notes_write", { address: name, content: `intro\n${needle}\n` })
      const found = yield* call("notes_search", { query: needle, limit: 1 })
      assert.strictEqual(code(found), "ok", text(found))
      assert.include(text(found), "- a.md:2 (offset 6): (x)[y]*")
      assert.isAtMost(utf8Length(text(found)), ToolResultByteLimit)
      assert.match(text(found), /More results: notes_search with the same arguments as this call, plus \{"cursor":"[^"]+"\}\.$/)
    }))

  it.effect("notes_list answers a glob with many stars", () =>
    Effect.gen(function*() {
      const { call } = yield* session
      yield* call("notes_write", { address: "a".repeat(60), content: "x" })
      yield* call("notes_write", { address: "keep/a1", content: "y" })
      const listed = yield* call("notes_list", { pattern: `${"**a".repeat(7)}!` })
      assert.include(text(listed), "No notes match.")
      const deep = yield* call("notes_list", { pattern: `${"*a".repeat(20)}` })
      assert.include(text(deep), `- ${"a".repeat(60)}.md`)
    }))

  it.effect("notes_update refuses an ambiguous oldText among 100,000 lines in a bounded sentence, and applies a unique one", () =>
    Effect.gen(function*() {
      const { call } = yield* session
      const checklist = `${"- [ ]\n".repeat(99_999)}- [ ] ship it`
      assert.strictEqual(code(yield* call("notes_write", { address: "todo", content: checklist })), "ok")
      const refused = yield* call("notes_update", { address: "todo", edits: [{ oldText: "- [ ]", newText: "- [x]" }] })
      assert.strictEqual(code(refused), "ambiguous_edit")
      assert.include(text(refused), "oldText occurs 100000 times (lines 1, 2, 3,")
      assert.include(text(refused), ", 20, and later lines)")
      assert.isBelow(text(refused).length, 600)
      const applied = yield* call("notes_update", { address: "todo", edits: [{ oldText: "- [ ] ship", newText: "- [x] ship" }] })
      assert.strictEqual(code(applied), "ok", text(applied))
      // Each edit is looked up in the whole note: their number is bounded, with a refusal that says what to do.
      const many = Array.from({ length: 51 }, (_, i) => ({ oldText: `edit ${i}`, newText: "x" }))
      const tooMany = yield* call("notes_update", { address: "todo", edits: many })
      assert.strictEqual(code(tooMany), "invalid_argument")
      assert.include(text(tooMany), "notes_update takes at most 50 edits per call and got 51; send them in several calls")
    }))

  it.effect("notes_search stops on a spent scan budget after one note, with a cursor that resumes", () =>
    Effect.gen(function*() {
      const { call } = yield* session
      for (const name of ["n1", "n2", "n3"]) yield* call("notes_write", { address: name, content: `hit in ${name}\n` })
      const spent = yield* call("notes_search", { query: "hit" }).pipe(Effect.provideService(CurrentScanDeadline, () => ({ spent: () => true })))
      assert.include(text(spent), "- n1.md:1")
      assert.notInclude(text(spent), "n2.md")
      assert.include(text(spent), "stopped on its time budget")
      const next = /More results: notes_search (\{.*\})\.$/m.exec(text(spent))
      assert.isNotNull(next)
      const rest = yield* call("notes_search", JSON.parse(next![1]!))
      assert.include(text(rest), "- n2.md:1")
      assert.include(text(rest), "- n3.md:1")
      assert.include(text(rest), "End of results.")
    }))
})

layer(storeLayer)("a search stopped on its budget", (it) => {
  it.effect("pages through notes_search to exactly the hits of an unbounded search, wherever the budget stops it", () =>
    Effect.gen(function*() {
      const { call } = yield* session
      for (let n = 0; n < 4; n++) {
        const lines = Array.from({ length: 400 }, (_, i) => ((i * 7 + n) % 23 === 0 ? `hit ${n}-${i}` : `line ${n}-${i} of filler`))
        yield* call("notes_write", { address: `n${n}`, content: lines.join("\n") })
      }
      const hitsOf = (text: string) => [...text.matchAll(/^- (n\d\.md:\d+) /gm)].map((m) => m[1]!)
      const pageAll = (spentAfter: number | undefined) =>
        Effect.gen(function*() {
          const hits: Array<string> = []
          let params: Record<string, unknown> = { query: "^hit \\d+-\\d+$", regex: true, limit: 7 }
          for (let page = 0; page < 200; page++) {
            let checks = 0
            const budget = { spent: () => spentAfter !== undefined && ++checks > spentAfter }
            const text = (yield* call("notes_search", params).pipe(Effect.provideService(CurrentScanDeadline, () => budget))).text
            hits.push(...hitsOf(text))
            const next = /More results: notes_search (\{.*\})\.$/m.exec(text)
            if (next === null) return hits
            params = JSON.parse(next[1]!) as Record<string, unknown>
          }
          return hits
        })
      const all = yield* pageAll(undefined)
      assert.isAbove(all.length, 50)
      for (const spentAfter of [0, 1, 2, 5]) assert.deepStrictEqual(yield* pageAll(spentAfter), all, `spent after ${spentAfter} checks`)
    }))
})

describe("the tool time budget", () => {
  it.effect("gives each scan of a call a budget that is spent scanMs after the scan starts", () =>
    Effect.gen(function*() {
      const probe = Effect.gen(function*() {
        const budget = (yield* CurrentScanDeadline)()
        const before = budget.spent()
        yield* Effect.sleep(ToolTimeLimits.scanMs)
        return ok(`${before} ${budget.spent()}`)
      })
      const fiber = yield* Effect.forkChild(withTimeLimit(ToolName.notesSearch)(probe))
      yield* TestClock.adjust(ToolTimeLimits.scanMs)
      assert.strictEqual(text(yield* Fiber.join(fiber)), "false true")
    }))

  it.effect("answers a call that never finishes with a bounded, actionable error", () =>
    Effect.gen(function*() {
      const read = yield* Effect.forkChild(withTimeLimit(ToolName.notesRead)(Effect.never))
      const write = yield* Effect.forkChild(withTimeLimit(ToolName.notesWrite)(Effect.never))
      yield* TestClock.adjust(ToolTimeLimits.callMs)
      const [readOutcome, writeOutcome] = [yield* Fiber.join(read), yield* Fiber.join(write)]
      assert.strictEqual(code(readOutcome), "timed_out")
      assert.include(text(readOutcome), "notes_read did not finish within 30 s and was stopped. Nothing was changed")
      assert.include(text(writeOutcome), "It may or may not have taken effect: check (notes_read, notes_list) before trying again.")
    }))
})
