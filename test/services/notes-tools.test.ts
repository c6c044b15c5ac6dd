import { assert, describe, it, layer } from "@effect/vitest"
import * as fc from "fast-check"
import { Effect, FileSystem } from "effect"
import { ToolResultByteLimit } from "../../src/kernel/protocol.ts"
import { type ToolOutcome, utf8Length } from "../../src/kernel/toolOutcome.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import { NotesStore } from "../../src/notes/NotesStore.ts"
import { notesToolHandlers } from "../../src/notes/notesHandlers.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"
import type { Home } from "../../src/kernel/homes.ts"

const storeLayer = NotesHomesLive.layerTest

/** A temp notes root and a fake Pi session whose settings point at it. */
const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "pi-notes-tools-" })
  const session = makeFakeSession({
    sessionId: "tool-session",
    cwd: root,
    settings: { "pi-context": { notesRoot: root, agentName: "Reviewer" } },
    model: { provider: "test", id: "Faux-Model 1", contextWindow: 100_000 }
  })
  const call = (tool: keyof typeof notesToolHandlers, params: unknown) =>
    Effect.provide(notesToolHandlers[tool](params), session.layer)
  return { fs, root, call }
})

const okText = (outcome: ToolOutcome): string => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

const failure = (outcome: ToolOutcome): { readonly code: string; readonly text: string } => {
  assert.strictEqual(outcome._tag, "Failed")
  return outcome._tag === "Failed" ? { code: outcome.code, text: outcome.text } : { code: "", text: "" }
}

layer(storeLayer)("notes tools", (it) => {
  it.effect("write, list and read back through the handlers, in the homes the identity names", () =>
    Effect.gen(function*() {
      const { fs, root, call } = yield* setup
      assert.strictEqual(okText(yield* call("notes_write", { address: "plan", content: "# Plan\nship it\n" })), "Created plan.md (120 B).")
      assert.strictEqual(okText(yield* call("notes_write", { address: "plan", content: "# Plan\nship it today\n" })).slice(0, 17), "Replaced plan.md ")
      okText(yield* call("notes_write", { address: "@agent/methods", content: "m" }))
      okText(yield* call("notes_write", { address: "@model/pitfalls", content: "p" }))
      assert.isTrue(yield* fs.exists(`${root}/sessions/tool-session/plan.md`))
      assert.isTrue(yield* fs.exists(`${root}/agents/reviewer/methods.md`))
      assert.isTrue(yield* fs.exists(`${root}/models/faux-model-1/pitfalls.md`))

      const listed = okText(yield* call("notes_list", {}))
      assert.include(listed, "- plan.md · \"Plan\"")
      assert.include(listed, "- @agent/methods.md")
      assert.include(listed, "End of list.")
      const read = okText(yield* call("notes_read", { address: "plan" }))
      assert.strictEqual(read, "plan.md (characters 0-21 of 21, updated 1970-01-01T00:00:00.000Z). End of note.\n\n# Plan\nship it today\n")
    }))

  it.effect("reads windows in code points: ZWJ emoji, CRLF and negative offsets", () =>
    Effect.gen(function*() {
      const { call } = yield* setup
      const family = "👨‍👩‍👧"
      const body = `a${family}b\r\nc`
      okText(yield* call("notes_write", { address: "w", content: body }))
      // The family emoji is five code points: man, ZWJ, woman, ZWJ, girl.
      const first = okText(yield* call("notes_read", { address: "w", offset: 0, limit: 3 }))
      assert.isTrue(first.endsWith("\n\na👨‍"))
      assert.include(first, "characters 0-3 of 10")
      assert.include(first, "notes_read { \"address\": \"w.md\", \"offset\": 3 }")
      const rest = okText(yield* call("notes_read", { address: "w", offset: 3 }))
      assert.isTrue(rest.endsWith("\n\n👩‍👧b\r\nc"))
      assert.include(rest, "End of note.")
      const tail = okText(yield* call("notes_read", { address: "w", offset: -3 }))
      assert.isTrue(tail.endsWith("\n\n\r\nc"))
      assert.include(tail, "characters 7-10 of 10")
      const past = okText(yield* call("notes_read", { address: "w", offset: 99 }))
      assert.include(past, "characters 10-10 of 10")
    }))

  it.effect("bounds every read to the tool limit and says where to continue", () =>
    Effect.gen(function*() {
      const { call } = yield* setup
      okText(yield* call("notes_write", { address: "big", content: "😀".repeat(20_000) }))
      const page = okText(yield* call("notes_read", { address: "big" }))
      assert.isAtMost(utf8Length(page), ToolResultByteLimit)
      assert.include(page, "\"offset\": 7500 }")
    }))

  it.effect("turns every refusal into a stable code and a sentence", () =>
    Effect.gen(function*() {
      const { call } = yield* setup
      okText(yield* call("notes_write", { address: "n", content: "x\nx\n" }))
      const cases: ReadonlyArray<readonly [keyof typeof notesToolHandlers, unknown, string, string]> = [
        ["notes_read", { address: "../etc/passwd" }, "invalid_address", "an address cannot leave its home"],
        ["notes_read", { address: "@nope/x" }, "invalid_address", "unknown home \"@nope\""],
        ["notes_read", { address: "missing" }, "not_found", "there is no note at missing.md"],
        ["notes_write", { address: "huge", content: "x".repeat(1_000_001) }, "too_large", "would be 1000001 bytes; the limit is 1000000 bytes"],
        ["notes_update", { address: "n", edits: [{ oldText: "x", newText: "y" }] }, "ambiguous_edit", "(lines 1, 2)"],
        ["notes_update", { address: "n", edits: [{ oldText: "z", newText: "y" }] }, "no_match", "was not found"],
        ["notes_write", { address: "n" }, "invalid_argument", "notes_write"],
        ["notes_search", { query: "(", regex: true }, "bad_regex", "is invalid"],
        ["notes_list", { cursor: "bogus" }, "invalid_argument", "cursor"],
        ["notes_list", { home: "@global" }, "invalid_argument", "unknown home"]
      ]
      for (const [tool, params, code, words] of cases) {
        const result = failure(yield* call(tool, params))
        assert.strictEqual(result.code, code, `${tool} ${JSON.stringify(params)}`)
        assert.include(result.text, words)
      }
    }))

  it.effect("pages notes_list and notes_search with cursors", () =>
    Effect.gen(function*() {
      const { call } = yield* setup
      for (let i = 0; i < 5; i++) okText(yield* call("notes_write", { address: `n${i}`, content: `hit ${i}\nhit again ${i}\n` }))
      const seen: Array<string> = []
      let params: Record<string, unknown> = { limit: 2 }
      for (let page = 0; page < 10; page++) {
        const text = okText(yield* call("notes_list", params))
        seen.push(...[...text.matchAll(/^- (n\d\.md)/gm)].map((m) => m[1]!))
        const next = /More notes: notes_list (\{.*\})\.$/m.exec(text)
        if (next === null) break
        params = JSON.parse(next[1]!) as Record<string, unknown>
      }
      assert.deepStrictEqual([...seen].sort(), ["n0.md", "n1.md", "n2.md", "n3.md", "n4.md"])

      const hits: Array<string> = []
      let search: Record<string, unknown> = { query: "HIT", limit: 3 }
      for (let page = 0; page < 10; page++) {
        const text = okText(yield* call("notes_search", search))
        hits.push(...[...text.matchAll(/^- (n\d\.md:\d) \(offset (\d+)\)/gm)].map((m) => `${m[1]}@${m[2]}`))
        const next = /More results: notes_search (\{.*\})\.$/m.exec(text)
        if (next === null) break
        search = JSON.parse(next[1]!) as Record<string, unknown>
      }
      assert.deepStrictEqual(hits, [0, 1, 2, 3, 4].flatMap((i) => [`n${i}.md:1@0`, `n${i}.md:2@6`]))
    }))
})

describe("notes_search paging", () => {
  const homes: ReadonlyArray<Home> = ["session", "project", "user"]
  const notesArbitrary = fc.uniqueArray(
    fc.record({
      home: fc.constantFrom(...homes),
      name: fc.stringMatching(/^[a-c]{1,3}(\/[a-c]{1,2})?$/),
      lines: fc.array(fc.boolean(), { minLength: 1, maxLength: 6 })
    }),
    { selector: (note) => `${note.home}:${note.name}`, maxLength: 12 }
  ).filter((notes) => {
    // A note "a" and a folder "a/…" cannot both exist in one home.
    const names = new Set(notes.map((note) => `${note.home}:${note.name}`))
    return notes.every((note) => !names.has(`${note.home}:${note.name.split("/")[0]}`) || !note.name.includes("/"))
  })

  it.live("returns every matching line exactly once across pages", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(notesArbitrary, fc.integer({ min: 1, max: 4 }), (notes, limit) =>
          Effect.runPromise(Effect.scoped(Effect.gen(function*() {
            const fs = yield* FileSystem.FileSystem
            const root = yield* fs.makeTempDirectoryScoped({ prefix: "pi-notes-prop-" })
            const identity = { root, sessionId: "s", projectKey: "p", agentName: "pi", modelSlug: "m" }
            const store = yield* NotesStore
            const expected: Array<string> = []
            for (const note of notes) {
              const address = note.home === "session" ? note.name : `@${note.home}/${note.name}`
              yield* store.write(identity, address, note.lines.map((hit, i) => (hit ? `needle ${i}` : `hay ${i}`)).join("\n"))
              note.lines.forEach((hit, i) => hit && expected.push(`${address}.md:${i + 1}`))
            }
            const found: Array<string> = []
            let cursor: string | undefined
            for (let page = 0; page <= expected.length + 1; page++) {
              const result = yield* store.search(identity, { query: "needle", limit, cursor })
              assert.isAtMost(result.hits.length, limit)
              found.push(...result.hits.map((hit) => `${hit.address}:${hit.line}`))
              cursor = result.nextCursor
              if (cursor === undefined) break
            }
            assert.strictEqual(cursor, undefined)
            assert.strictEqual(new Set(found).size, found.length)
            assert.deepStrictEqual([...found].sort(), [...expected].sort())
          })).pipe(Effect.provide(storeLayer)))
        ),
        { numRuns: 25 }
      )
    ))
})
