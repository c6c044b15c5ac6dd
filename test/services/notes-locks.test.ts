import { assert, layer } from "@effect/vitest"
import { spawn } from "node:child_process"
import { hostname } from "node:os"
import { fileURLToPath } from "node:url"
import { Effect, FileSystem, Option, Path } from "effect"
import { NotesStore } from "../../src/notes/NotesStore.ts"
import { lockProtocol } from "../../src/notes/lockFile.ts"
import { identityAt, liveNotesLayer } from "../support/notesStoreFixtures.ts"

/** Above Linux's largest pid: never a running process. */
const deadPid = 2 ** 22 + 12_345
const yearMs = 365 * 86_400_000
const minutes = (n: number) => n * 60_000

const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "pi-notes-locks-" })
  const store = yield* NotesStore
  const identity = identityAt(root)
  const dir = `${root}/sessions/sess-1`
  /** Writes `name` in the session home with its mtime `ageMs` in the past (negative: in the future). */
  const plant = (name: string, content: string, ageMs: number) =>
    Effect.andThen(
      fs.writeFileString(`${dir}/${name}`, content),
      fs.utimes(`${dir}/${name}`, new Date(Date.now() - ageMs), new Date(Date.now() - ageMs))
    )
  const names = Effect.map(fs.readDirectory(dir), (all) => [...all].sort())
  return { fs, path, root, dir, store, identity, plant, names }
})

const appender = fileURLToPath(new URL("../support/notesAppender.ts", import.meta.url))

/** One child process applying `count` appends to `@project/shared` under `root`. */
const runAppender = (root: string, tag: string, count: number) =>
  Effect.callback<{ readonly code: number | null; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [appender, root, tag, String(count)], { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    child.on("close", (code) => resume(Effect.succeed({ code, stderr })))
  })

const owner = (fields: { readonly pid: number; readonly host: string; readonly at: number }) =>
  JSON.stringify({ ...fields, token: `${fields.pid}-1-abc` })

// The real clock: lock ages here are judged against Date.now.
layer(liveNotesLayer, { excludeTestServices: true })("note locks that recover", (it) => {
  const corrupt: ReadonlyArray<readonly [string, () => string, number]> = [
    ["empty (a writer killed between creating and filling it)", () => "", 60_000],
    ["truncated (the disk filled as it was written)", () => "{\"pid\":12", 60_000],
    ["not a lock at all", () => "\u0000garbage\n", 60_000],
    ["from another host", () => owner({ pid: 1, host: "elsewhere.example", at: Date.now() }), 60_000],
    ["timestamped in the future, from another host", () => owner({ pid: 1, host: "elsewhere.example", at: Date.now() + 10 * yearMs }), 60_000],
    ["dated in the future on disk, naming a live pid of this host", () => owner({ pid: 1, host: hostname(), at: Date.now() + yearMs }), -yearMs],
    ["left by a dead pid of this host", () => owner({ pid: deadPid, host: hostname(), at: Date.now() }), 0]
  ]
  for (const [name, content, ageMs] of corrupt) {
    it.effect(`takes over a lock ${name}`, () =>
      Effect.gen(function*() {
        const { store, identity, plant, names, fs, dir } = yield* setup
        yield* store.write(identity, "n", "a")
        yield* plant("n.md.lock", content(), ageMs)
        const updated = yield* store.update(identity, "n", [{ oldText: "a", newText: "b" }])
        assert.strictEqual(updated.editsApplied, 1)
        assert.strictEqual((yield* store.read(identity, "n")).body, "b")
        // The lock, its takeover marker and the taker's own files are all gone.
        assert.deepStrictEqual(yield* names, ["n.md"])
        assert.isFalse(yield* fs.exists(`${dir}/n.md.lock`))
      }))
  }

  it.effect("takes over a lock that is a link to a device, without reading it", () =>
    Effect.gen(function*() {
      const { store, identity, fs, dir, names } = yield* setup
      yield* store.write(identity, "n", "a")
      yield* fs.symlink("/dev/zero", `${dir}/n.md.lock`)
      yield* store.update(identity, "n", [{ oldText: "a", newText: "b" }])
      assert.strictEqual((yield* store.read(identity, "n")).body, "b")
      assert.deepStrictEqual(yield* names, ["n.md"])
    }))

  it.effect("a taker that looked before another took the lock over never removes the lock taken since", () =>
    Effect.gen(function*() {
      const { plant, dir, fs, path } = yield* setup
      yield* fs.makeDirectory(dir, { recursive: true })
      const lock = `${dir}/n.md.lock`
      yield* plant("n.md.lock", owner({ pid: deadPid, host: hostname(), at: 0 }), 60_000)
      const seen = Option.getOrThrow(yield* lockProtocol.look({ fs, path }, lock))
      // Another taker removes the stale lock and a writer takes the lock afresh.
      yield* fs.remove(lock)
      yield* fs.writeFileString(lock, lockProtocol.ownerText("fresh-writer", 0))
      yield* lockProtocol.takeOver({ fs, path }, lock, seen, "late-taker", Date.now())
      assert.strictEqual(yield* fs.readFileString(lock), lockProtocol.ownerText("fresh-writer", 0))
      assert.deepStrictEqual([...(yield* fs.readDirectory(dir))], ["n.md.lock"])
    }))

  it.effect("of two takers of one stale lock only the one holding its marker removes it; a killed taker's marker is stepped over", () =>
    Effect.gen(function*() {
      const { plant, dir, fs, path } = yield* setup
      yield* fs.makeDirectory(dir, { recursive: true })
      const ops = { fs, path }
      const lock = `${dir}/n.md.lock`
      yield* plant("n.md.lock", "", 60_000)
      const seen = Option.getOrThrow(yield* lockProtocol.look(ops, lock))
      // A live taker (pid 1 runs) is between creating its marker and removing the lock.
      const first = lockProtocol.markerPath(lock, seen, 0)
      yield* fs.writeFileString(first, JSON.stringify({ pid: 1, host: hostname(), token: "1-1-a", at: 0 }))
      yield* lockProtocol.takeOver(ops, lock, seen, "second-taker", Date.now())
      assert.strictEqual(yield* fs.readFileString(lock), "", "the second taker left the lock to the first")
      assert.isTrue(yield* fs.exists(first))

      // That taker was killed: its marker names a dead pid. The next taker steps to the next generation.
      yield* fs.writeFileString(first, JSON.stringify({ pid: deadPid, host: hostname(), token: `${deadPid}-1-a`, at: 0 }))
      yield* lockProtocol.takeOver(ops, lock, seen, "third-taker", Date.now())
      assert.isFalse(yield* fs.exists(lock))
      assert.deepStrictEqual([...(yield* fs.readDirectory(dir))], [])
    }))

  it.effect("many writers meeting one stale lock take it over once between them and lose no update", () =>
    Effect.gen(function*() {
      const { store, identity, plant } = yield* setup
      yield* store.write(identity, "log", "<!-- end -->")
      yield* plant("log.md.lock", "", 60_000)
      yield* Effect.forEach(
        Array.from({ length: 24 }, (_, i) => i),
        (i) => store.update(identity, "log", [{ oldText: "<!-- end -->", newText: `entry ${i}\n<!-- end -->` }]),
        { concurrency: "unbounded", discard: true }
      )
      const body = (yield* store.read(identity, "log")).body
      for (let i = 0; i < 24; i++) assert.include(body, `entry ${i}\n`)
      assert.strictEqual(body.split("\n").length, 25)
    }))

  it.effect("two processes meeting one stale lock at once take it over once between them and lose no update", () =>
    Effect.gen(function*() {
      const { fs, store, root } = yield* setup
      const identity = { root, sessionId: "two-process", projectKey: "p", agentName: "pi", modelSlug: "m" }
      yield* store.write(identity, "@project/shared", "<!-- end -->")
      const lock = `${root}/projects/p/shared.md.lock`
      yield* fs.writeFileString(lock, "")
      yield* fs.utimes(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))
      const results = yield* Effect.all([runAppender(root, "left", 40), runAppender(root, "right", 40)], { concurrency: 2 })
      for (const result of results) assert.deepStrictEqual(result, { code: 0, stderr: "" })
      const entries = (yield* store.read(identity, "@project/shared")).body.split("\n").slice(0, -1)
      for (const tag of ["left", "right"]) {
        assert.deepStrictEqual(entries.filter((line) => line.startsWith(`${tag}-`)), Array.from({ length: 40 }, (_, i) => `${tag}-${i}`))
      }
      assert.deepStrictEqual([...(yield* fs.readDirectory(`${root}/projects/p`))], ["shared.md"])
    }), 120_000)

  it.effect("removes temporary files and markers that killed writers left, and nothing a live writer may still use", () =>
    Effect.gen(function*() {
      const { store, identity, plant, names, fs, dir } = yield* setup
      yield* fs.makeDirectory(dir, { recursive: true })
      yield* plant("n.md", "a", minutes(5))
      yield* plant(`n.md.tmp-${deadPid}-1-abc`, "half a note", minutes(2))
      yield* plant(`n.md.tmp-${deadPid}-2-abc`, "being written", 0)
      yield* plant("n.md.tmp-1-3-abc", "a live writer's", minutes(2))
      yield* plant("n.md.tmp-1-4-abc", "abandoned long ago", minutes(120))
      yield* plant(`n.md.lock.tmp-${deadPid}-5-abc`, "", minutes(2))
      yield* plant("n.md.lock.break-1a2b3c-0", "", minutes(2))
      yield* plant(`n.md.lock.stale-${deadPid}-6-abc`, "", minutes(2))
      yield* plant("notes.tmp-draft.md", "a note whose name looks like one", minutes(120))
      yield* plant("readme.txt", "not the store's", minutes(120))
      yield* store.write(identity, "other", "x")
      assert.deepStrictEqual(yield* names, [
        "n.md",
        "n.md.tmp-1-3-abc",
        `n.md.tmp-${deadPid}-2-abc`,
        "notes.tmp-draft.md",
        "other.md",
        "readme.txt"
      ])
    }))

  it.effect("a name at the limit leaves room for the lock, temporary and marker names beside it", () =>
    Effect.gen(function*() {
      const { store, identity, plant } = yield* setup
      const name = "n".repeat(197)
      yield* store.write(identity, name, "a")
      yield* plant(`${name}.md.lock`, "", 60_000)
      yield* store.update(identity, name, [{ oldText: "a", newText: "b" }])
      assert.strictEqual((yield* store.read(identity, name)).body, "b")
    }))
})
