import { assert, describe, it, layer } from "@effect/vitest"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { tmpdir } from "node:os"
import { Effect, FileSystem, Layer, PlatformError } from "effect"
import { ToolResultByteLimit } from "../../src/kernel/protocol.ts"
import { CutMark, type ToolOutcome, utf8Length } from "../../src/kernel/toolOutcome.ts"
import * as ThresholdsLive from "../../src/settings/ThresholdsLive.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import * as NotesStoreLive from "../../src/notes/NotesStoreLive.ts"
import { NoteByteLimit, NotesStore } from "../../src/notes/NotesStore.ts"
import { notesToolHandlers } from "../../src/notes/notesHandlers.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"

const storeLayer = NotesHomesLive.layerTest

type Tool = keyof typeof notesToolHandlers

/** A notes root under the system temp folder and the tools of a session whose settings point at `root` (default: it). */
const setup = (rootOf: (temp: string) => string = (temp) => temp) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const temp = yield* fs.makeTempDirectoryScoped({ prefix: "pi-notes-hostile-" })
    const root = rootOf(temp)
    const session = makeFakeSession({
      sessionId: "s1",
      cwd: temp,
      settings: { "pi-context": { notesRoot: root } },
      model: { provider: "test", id: "m", contextWindow: 100_000 }
    })
    const call = (tool: Tool, params: unknown) => Effect.provide(notesToolHandlers[tool](params), session.layer)
    return { fs, temp, root, home: `${root}/sessions/s1`, call }
  })

const okText = (outcome: ToolOutcome): string => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

const failure = (outcome: ToolOutcome): { readonly code: string; readonly text: string } => {
  assert.strictEqual(outcome._tag, "Failed", outcome.text)
  return outcome._tag === "Failed" ? { code: outcome.code, text: outcome.text } : { code: "", text: "" }
}

/** Every path of this machine a message could leak: the temp folder (and so the notes root under it). */
const assertNoPath = (text: string, temp: string) => {
  assert.notInclude(text, temp)
  assert.notInclude(text, tmpdir())
}

layer(storeLayer)("names a file system cannot hold", (it) => {
  it.effect("refuses a 240-character address before touching the disk, with its own code, the limit and the fix", () =>
    Effect.gen(function*() {
      const { call, fs, temp, home } = yield* setup()
      const refused = failure(yield* call("notes_write", { address: "x".repeat(240), content: "c" }))
      assert.strictEqual(refused.code, "name_too_long")
      assert.include(refused.text, "243 bytes in UTF-8 with .md")
      assert.include(refused.text, "at most 200 bytes")
      assert.include(refused.text, "Shorten the name")
      assert.notInclude(refused.text, "Try again")
      assertNoPath(refused.text, temp)
      okText(yield* call("notes_write", { address: "short", content: "c" }))
      const renamed = failure(yield* call("notes_update", { address: "short", rename_to: `deep/${"日".repeat(80)}` }))
      assert.strictEqual(renamed.code, "name_too_long")
      assert.deepStrictEqual([...(yield* fs.readDirectory(home))], ["short.md"])
    }))
})

layer(storeLayer)("a hand-written note over the write limit", (it) => {
  const line = (i: number) => `${i} é😀 ligne ${"x".repeat(i % 50)}\n`
  const body = (() => {
    const lines: Array<string> = []
    let bytes = 0
    for (let i = 0; bytes < 1_500_000; i++) {
      lines.push(line(i))
      bytes += utf8Length(line(i))
    }
    return lines.join("")
  })()
  const points = Array.from(body)

  it.effect("is read by offset, page by page, from the start, the middle and the end", () =>
    Effect.gen(function*() {
      const { call, fs, home } = yield* setup()
      yield* fs.makeDirectory(home, { recursive: true })
      yield* fs.writeFileString(`${home}/big.md`, `---\ncreated: 2020-01-01T00:00:00.000Z\ntags: [imported]\n---\n${body}`)
      assert.isAbove(Number((yield* fs.stat(`${home}/big.md`)).size), NoteByteLimit)

      let offset = 0
      let joined = ""
      for (let n = 0; n < 3; n++) {
        const read = okText(yield* call("notes_read", { address: "big", offset }))
        assert.isAtMost(utf8Length(read), ToolResultByteLimit)
        assert.include(read, `of ${points.length}`)
        const next = /"offset": (\d+) \}/.exec(read)
        assert.isNotNull(next)
        joined += read.slice(read.indexOf("\n\n") + 2)
        offset = Number(next![1])
      }
      assert.strictEqual(joined, points.slice(0, offset).join(""))

      const middle = okText(yield* call("notes_read", { address: "big", offset: 700_000, limit: 500 }))
      assert.include(middle, `characters 700000-700500 of ${points.length}`)
      assert.isTrue(middle.endsWith(`\n\n${points.slice(700_000, 700_500).join("")}`))
      const tail = okText(yield* call("notes_read", { address: "big", offset: -40 }))
      assert.include(tail, "End of note.")
      assert.isTrue(tail.endsWith(`\n\n${points.slice(-40).join("")}`))
    }))

  it.effect("refuses an edit with the way to split it, and can be replaced by a smaller note keeping its frontmatter", () =>
    Effect.gen(function*() {
      const { call, fs, home } = yield* setup()
      yield* fs.makeDirectory(home, { recursive: true })
      yield* fs.writeFileString(`${home}/big.md`, `---\ncreated: 2020-01-01T00:00:00.000Z\ntags: [imported]\n---\n${body}`)
      const edit = failure(yield* call("notes_update", { address: "big", edits: [{ oldText: "0 é😀", newText: "zero" }] }))
      assert.strictEqual(edit.code, "too_large")
      assert.include(edit.text, "Read it by offset with notes_read, write its parts as smaller notes with notes_write")
      okText(yield* call("notes_write", { address: "big-1", content: points.slice(0, 1000).join("") }))
      okText(yield* call("notes_write", { address: "big", content: "Split into big-1 and on." }))
      const replaced = yield* fs.readFileString(`${home}/big.md`)
      assert.include(replaced, "created: 2020-01-01T00:00:00.000Z")
      assert.include(replaced, "tags: [imported]")
      assert.isTrue(replaced.endsWith("---\nSplit into big-1 and on."))
    }))
})

layer(storeLayer)("continuation cursors", (it) => {
  it.effect("survive a 31 KB notes_search query: the continuation is whole and continues", () =>
    Effect.gen(function*() {
      const { call } = yield* setup()
      const query = "needle ".repeat(4_500)
      for (let i = 0; i < 12; i++) okText(yield* call("notes_write", { address: `n${String(i).padStart(2, "0")}`, content: `before\n${query}${i}\nafter` }))
      const first = okText(yield* call("notes_search", { query, limit: 10 }))
      assert.isAtMost(utf8Length(first), ToolResultByteLimit)
      assert.notInclude(first, CutMark)
      const next = /More results: notes_search with the same arguments as this call, plus (\{"cursor":"[^"]+"\})\.$/.exec(first)
      assert.isNotNull(next, first.slice(-300))
      const second = okText(yield* call("notes_search", { query, limit: 10, ...JSON.parse(next![1]!) }))
      assert.deepStrictEqual([...second.matchAll(/^- (n\d\d\.md):2/gm)].map((m) => m[1]), ["n10.md", "n11.md"])
      assert.include(second, "End of results.")
    }))
})

/** A file system whose `open` of a temporary file, or whose reads, fail as the disk would, naming the absolute path as Node does. */
const failingLayer = (code: string, on: "write" | "read") =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => {
      const fail = (method: string, path: string) =>
        Effect.fail(PlatformError.systemError({
          _tag: "Unknown",
          module: "FileSystem",
          method,
          pathOrDescriptor: path,
          cause: Object.assign(new Error(`${code}: failed, ${method} '${path}'`), { code })
        }))
      return on === "write"
        ? { ...fs, open: (path, options) => (path.includes(".tmp-") ? fail("open", path) : fs.open(path, options)) }
        : { ...fs, readFileString: (path, encoding) => (path.endsWith(".md") ? fail("readFile", path) : fs.readFileString(path, encoding)) }
    })
  ).pipe(Layer.provide(NodeFileSystem.layer))

const storeOver = (code: string, on: "write" | "read") =>
  NotesHomesLive.layerWithoutDependencies.pipe(Layer.merge(ThresholdsLive.layer), Layer.provideMerge(NotesStoreLive.layerWithoutDependencies), Layer.provideMerge(Layer.mergeAll(failingLayer(code, on), NodePath.layer)))

describe("errors a model can act on", () => {
  const injected: ReadonlyArray<readonly [string, "write" | "read", "io_permanent" | "io_error", string]> = [
    ["ENOSPC", "write", "io_permanent", "the disk is full"],
    ["EDQUOT", "write", "io_permanent", "quota"],
    ["EROFS", "write", "io_permanent", "read-only"],
    ["EACCES", "write", "io_permanent", "permission denied"],
    ["ENAMETOOLONG", "write", "io_permanent", "use a shorter address"],
    ["EMFILE", "write", "io_error", "Try again"],
    ["EIO", "read", "io_error", "Try again"],
    ["EACCES", "read", "io_permanent", "notes root"]
  ]
  for (const [code, on, expected, words] of injected) {
    it.effect(`${code} on ${on} is ${expected === "io_permanent" ? "permanent" : "worth retrying"}, named by address and home, with no path`, () =>
      Effect.gen(function*() {
        const { call, fs, temp, root } = yield* setup()
        yield* fs.makeDirectory(`${root}/projects`, { recursive: true })
        if (on === "read") yield* Effect.provide(Effect.flatMap(NotesStore, (store) => store.write({ root, sessionId: "s1", projectKey: "x", agentName: "pi", modelSlug: "m" }, "@user/plan", "p")), storeLayer)
        const outcome = yield* (on === "write" ? call("notes_write", { address: "@user/plan", content: "p" }) : call("notes_read", { address: "@user/plan" }))
        const { code: got, text } = failure(outcome)
        assert.strictEqual(got, expected)
        assert.include(text, `@user/plan.md in the @user home`)
        assert.include(text, `(${code})`)
        assert.include(text, words)
        if (expected === "io_permanent") assert.notInclude(text, "Try again")
        assertNoPath(text, temp)
      }).pipe(Effect.provide(storeOver(code, on))))
  }

  it.effect("real failures of the disk carry no path of the machine either", () =>
    Effect.gen(function*() {
      const { call, fs, temp, home } = yield* setup()
      yield* fs.makeDirectory(`${home}/plan.md`, { recursive: true })
      yield* fs.writeFileString(`${home}/folder`, "a file where a folder should be")
      const texts: Array<string> = []
      const expect = (outcome: ToolOutcome, code: string, words: string) => {
        const { code: got, text } = failure(outcome)
        assert.strictEqual(got, code, text)
        assert.include(text, words)
        texts.push(text)
      }
      expect(yield* call("notes_write", { address: "plan", content: "p" }), "io_permanent", "a folder stands where the note's file should be")
      expect(yield* call("notes_write", { address: "folder/note", content: "n" }), "io_permanent", "a file stands where a folder of the address should be")
      expect(yield* call("notes_read", { address: "plan" }), "not_found", "plan.md")
      expect(yield* call("notes_read", { address: "x".repeat(300) }), "io_permanent", "ENAMETOOLONG")
      expect(yield* call("notes_write", { address: "../../escape", content: "e" }), "invalid_address", "cannot leave its home")
      expect(yield* call("notes_search", { query: "(", regex: true }), "bad_regex", "is invalid")
      for (const text of texts) assertNoPath(text, temp)
    }).pipe(Effect.provide(storeLayer)))

  it.effect("a notes root that is a file, or too deep for the file system, gives permanent errors without its path", () =>
    Effect.gen(function*() {
      const file = yield* setup((temp) => `${temp}/root-is-a-file`)
      yield* file.fs.writeFileString(file.root, "not a folder")
      const onFile = failure(yield* file.call("notes_write", { address: "plan", content: "p" }))
      assert.strictEqual(onFile.code, "io_permanent")
      assertNoPath(onFile.text, file.temp)

      const deep = yield* setup((temp) => `${temp}/${Array.from({ length: 22 }, (_, i) => `${i}`.padEnd(200, "d")).join("/")}`)
      const tooDeep = failure(yield* deep.call("notes_write", { address: "plan", content: "p" }))
      assert.strictEqual(tooDeep.code, "io_permanent", tooDeep.text)
      assert.include(tooDeep.text, "ENAMETOOLONG")
      assertNoPath(tooDeep.text, deep.temp)
    }).pipe(Effect.provide(storeLayer)))
})

layer(storeLayer)("addresses in Unicode", (it) => {
  const nfd = "Cafe\u0301 U\u0308bersicht"
  const nfc = "Caf\u00e9 \u00dcbersicht"

  it.effect("an NFD name and its NFC form are one note, written in NFC", () =>
    Effect.gen(function*() {
      const { call, fs, home } = yield* setup()
      okText(yield* call("notes_write", { address: nfd, content: "first" }))
      assert.include(okText(yield* call("notes_write", { address: nfc, content: "second" })), "Replaced")
      assert.isTrue(okText(yield* call("notes_read", { address: nfd })).endsWith("\n\nsecond"))
      assert.deepStrictEqual([...(yield* fs.readDirectory(home))], [`${nfc}.md`])
      assert.strictEqual([...okText(yield* call("notes_list", {})).matchAll(/^- /gm)].length, 1)
    }))

  it.effect("a note saved by hand under an NFD name is the note its NFC address names", () =>
    Effect.gen(function*() {
      const { call, fs, home } = yield* setup()
      yield* fs.makeDirectory(`${home}/Re\u0301sume\u0301s`, { recursive: true })
      yield* fs.writeFileString(`${home}/Re\u0301sume\u0301s/${nfd}.md`, "by hand")
      const address = `R\u00e9sum\u00e9s/${nfc}`
      assert.isTrue(okText(yield* call("notes_read", { address })).endsWith("\n\nby hand"))
      okText(yield* call("notes_update", { address, edits: [{ oldText: "by hand", newText: "edited" }] }))
      assert.deepStrictEqual([...(yield* fs.readDirectory(`${home}/Re\u0301sume\u0301s`))], [`${nfd}.md`])
      assert.isTrue((yield* fs.readFileString(`${home}/Re\u0301sume\u0301s/${nfd}.md`)).endsWith("edited"))
    }))

  const invisible: ReadonlyArray<readonly [string, string, string]> = [
    ["a right-to-left override", "report\u202Edm.exe", "bidirectional control U+202E"],
    ["a right-to-left isolate", "a\u2067b", "bidirectional control U+2067"],
    ["a right-to-left mark", "a\u200Fb", "bidirectional control U+200F"],
    ["a zero-width space", "pl\u200Ban", "invisible format character U+200B"],
    ["a zero-width joiner", "a\u200Db", "invisible format character U+200D"],
    ["a byte-order mark", "\uFEFFplan", "invisible format character U+FEFF"],
    ["a word joiner", "@project/a\u2060b", "invisible format character U+2060"]
  ]
  for (const [name, address, words] of invisible) {
    it.effect(`refuses ${name} in an address, writing nothing`, () =>
      Effect.gen(function*() {
        const { call, fs, root } = yield* setup()
        const refused = failure(yield* call("notes_write", { address, content: "c" }))
        assert.strictEqual(refused.code, "invalid_address")
        assert.include(refused.text, words)
        assert.isFalse(yield* fs.exists(`${root}/sessions`))
        assert.isFalse(yield* fs.exists(`${root}/projects`))
      }))
  }
})
