import { assert, describe, it } from "@effect/vitest"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Effect, Exit, Fiber, FileSystem, Layer, Path, PlatformError } from "effect"
import { TestClock } from "effect/testing"
import { renderBoot } from "../../src/boot/boot.ts"
import { NoteByteLimit, NotesStore } from "../../src/notes/NotesStore.ts"
import { layerWithoutDependencies as notesLayer } from "../../src/notes/NotesStoreLive.ts"
import { identityAt, liveNotesLayer, nodeLayer } from "../support/notesStoreFixtures.ts"



/** A fresh notes root, removed when the test ends. */
const freshRoot = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "pi-notes-" }))

const withStore = Effect.gen(function*() {
  const root = yield* freshRoot
  const store = yield* NotesStore
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  return { root, identity: identityAt(root), store, fs, path }
})

const bootIdentity = {
  agentName: "pi",
  model: "test/test-model",
  modelSlug: "test-model",
  sessionId: "sess-1",
  rootWindowId: "r",
  currentWindowId: "c",
  previousWindowId: "p"
}

describe("NotesStore on disk", () => {
  it.effect("writes, reads back, and says whether it created or replaced", () =>
    Effect.gen(function*() {
      const { store, identity, fs, root } = yield* withStore
      const first = yield* store.write(identity, "@project/decisions", "# Decisions\n- use Effect\n")
      assert.deepStrictEqual(first, { address: "@project/decisions.md", created: true, bytes: first.bytes })
      const second = yield* store.write(identity, "@project/decisions.md", "# Decisions\n- use Effect 4\n")
      assert.isFalse(second.created)
      const note = yield* store.read(identity, "@project/decisions")
      assert.strictEqual(note.body, "# Decisions\n- use Effect 4\n")
      assert.strictEqual(note.created, "1970-01-01T00:00:00.000Z")
      const onDisk = yield* fs.readFileString(`${root}/projects/repo-0000abcd/decisions.md`)
      assert.strictEqual(onDisk, "---\ncreated: 1970-01-01T00:00:00.000Z\nupdated: 1970-01-01T00:00:00.000Z\norigin: session:sess-1\n---\n# Decisions\n- use Effect 4\n")
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("keeps unknown frontmatter keys and the created time when a note is replaced", () =>
    Effect.gen(function*() {
      const { store, identity, fs, root } = yield* withStore
      yield* fs.makeDirectory(`${root}/user`, { recursive: true })
      yield* fs.writeFileString(`${root}/user/prefs.md`, "---\ncreated: 2020-01-01T00:00:00.000Z\npinned: true\n---\nold\n")
      yield* TestClock.adjust("1 hour")
      yield* store.write(identity, "@user/prefs", "new\n")
      const onDisk = yield* fs.readFileString(`${root}/user/prefs.md`)
      assert.strictEqual(onDisk, "---\ncreated: 2020-01-01T00:00:00.000Z\nupdated: 1970-01-01T01:00:00.000Z\norigin: session:sess-1\npinned: true\n---\nnew\n")
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("applies edits all or nothing and renames", () =>
    Effect.gen(function*() {
      const { store, identity, fs, root } = yield* withStore
      yield* store.write(identity, "plan", "# Plan\n- a\n- b\n- a\n")
      const before = yield* fs.readFileString(`${root}/sessions/sess-1/plan.md`)
      const ambiguous = yield* Effect.flip(store.update(identity, "plan", [{ oldText: "# Plan", newText: "# P" }, { oldText: "- a", newText: "- c" }]))
      assert.strictEqual(ambiguous._tag, "AmbiguousEdit")
      if (ambiguous._tag === "AmbiguousEdit") assert.deepStrictEqual([ambiguous.editIndex, [...ambiguous.lines]], [2, [2, 4]])
      const missing = yield* Effect.flip(store.update(identity, "plan", [{ oldText: "- z", newText: "" }]))
      assert.strictEqual(missing._tag, "NoMatch")
      assert.strictEqual(yield* fs.readFileString(`${root}/sessions/sess-1/plan.md`), before)

      const done = yield* store.update(identity, "plan", [{ oldText: "- b", newText: "- B" }], "@project/plan")
      assert.deepStrictEqual(done, { address: "@project/plan.md", renamedFrom: "plan.md", editsApplied: 1, bytes: done.bytes })
      assert.isFalse(yield* fs.exists(`${root}/sessions/sess-1/plan.md`))
      assert.strictEqual((yield* store.read(identity, "@project/plan")).body, "# Plan\n- a\n- B\n- a\n")

      yield* store.write(identity, "other", "x")
      const occupied = yield* Effect.flip(store.update(identity, "other", [], "@project/plan"))
      assert.strictEqual(occupied._tag, "InvalidNoteRequest")
      assert.isTrue(yield* fs.exists(`${root}/sessions/sess-1/other.md`))
      const nothing = yield* Effect.flip(store.update(identity, "other", []))
      assert.strictEqual(nothing._tag, "InvalidNoteRequest")
      const absent = yield* Effect.flip(store.update(identity, "absent", [{ oldText: "x", newText: "y" }]))
      assert.strictEqual(absent._tag, "NoteNotFound")
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("never writes when reading, listing, searching or taking a snapshot", () =>
    Effect.gen(function*() {
      const { store, identity, fs, root } = yield* withStore
      yield* store.write(identity, "MAP", "- plan\n")
      yield* store.write(identity, "plan", "# Plan\nfind me\n")
      const file = `${root}/sessions/sess-1/plan.md`
      const before = yield* fs.stat(file)
      const text = yield* fs.readFileString(file)
      yield* store.read(identity, "plan")
      yield* store.list(identity, { limit: 10 })
      yield* store.search(identity, { query: "find", limit: 10 })
      yield* store.snapshot(identity)
      const after = yield* fs.stat(file)
      assert.deepStrictEqual(after.mtime, before.mtime)
      assert.strictEqual(yield* fs.readFileString(file), text)
      assert.deepStrictEqual((yield* fs.readDirectory(`${root}/sessions/sess-1`)).sort(), ["MAP.md", "plan.md"])
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("treats absent homes as empty", () =>
    Effect.gen(function*() {
      const { store, identity } = yield* withStore
      const snapshot = yield* store.snapshot(identity)
      assert.deepStrictEqual(snapshot.homes.map((home) => [home.home, home._tag, home._tag === "Available" ? home.noteCount : -1]), [
        ["session", "Available", 0],
        ["project", "Available", 0],
        ["user", "Available", 0],
        ["agent", "Available", 0],
        ["model", "Available", 0]
      ])
      const listed = yield* store.list(identity, { limit: 10 })
      assert.deepStrictEqual([listed.rows.length, listed.unavailable.length], [0, 0])
      const missing = yield* Effect.flip(store.read(identity, "nothing"))
      assert.strictEqual(missing._tag, "NoteNotFound")
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("snapshots each home's MAP and most recent notes with their titles", () =>
    Effect.gen(function*() {
      const { store, identity } = yield* withStore
      yield* store.write(identity, "@agent/MAP", "- methods: how I test\n")
      yield* store.write(identity, "@agent/methods", "---\n# How I test\n")
      const snapshot = yield* store.snapshot(identity)
      const agent = snapshot.homes[3]!
      assert.strictEqual(agent._tag, "Available")
      if (agent._tag === "Available") {
        assert.deepStrictEqual(agent.map, { address: "@agent/MAP.md", body: "- methods: how I test\n", bytes: agent.map!.bytes, updatedMs: agent.map!.updatedMs })
        assert.isAbove(agent.map!.updatedMs, 0)
        assert.deepStrictEqual(agent.recent.map((row) => [row.address, row.title]), [["@agent/methods.md", "How I test"]])
        assert.strictEqual(agent.location, "agents/pi")
      }
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("refuses a symlink that leads out of its home", () =>
    Effect.gen(function*() {
      const { store, identity, fs, root } = yield* withStore
      const outside = `${root}/outside`
      yield* fs.makeDirectory(outside, { recursive: true })
      yield* fs.writeFileString(`${outside}/secret.md`, "secret")
      yield* fs.makeDirectory(`${root}/sessions/sess-1`, { recursive: true })
      yield* fs.symlink(outside, `${root}/sessions/sess-1/link`)
      yield* fs.symlink(`${outside}/secret.md`, `${root}/sessions/sess-1/alias.md`)

      const viaDir = yield* Effect.flip(store.write(identity, "link/new", "x"))
      assert.strictEqual(viaDir._tag, "InvalidAddress")
      assert.isFalse(yield* fs.exists(`${outside}/new.md`))
      const readDir = yield* Effect.flip(store.read(identity, "link/secret"))
      assert.strictEqual(readDir._tag, "InvalidAddress")
      const readFile = yield* Effect.flip(store.read(identity, "alias"))
      assert.strictEqual(readFile._tag, "InvalidAddress")
      if (readFile._tag === "InvalidAddress") assert.include(readFile.reason, "outside its home")
      const overwrite = yield* Effect.flip(store.write(identity, "alias", "pwned"))
      assert.strictEqual(overwrite._tag, "InvalidAddress")
      assert.strictEqual(yield* fs.readFileString(`${outside}/secret.md`), "secret")
      const listed = yield* store.list(identity, { limit: 10 })
      assert.deepStrictEqual(listed.rows, [])
      const found = yield* store.search(identity, { query: "secret", limit: 10 })
      assert.deepStrictEqual(found.hits, [])
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("refuses a note over 1 MB and names its size", () =>
    Effect.gen(function*() {
      const { store, identity, fs, root } = yield* withStore
      const error = yield* Effect.flip(store.write(identity, "big", "x".repeat(NoteByteLimit + 1)))
      assert.strictEqual(error._tag, "NoteTooLarge")
      if (error._tag === "NoteTooLarge") assert.strictEqual(error.bytes, NoteByteLimit + 1)
      assert.isFalse(yield* fs.exists(`${root}/sessions/sess-1/big.md`))
      // Near the limit, the frontmatter tips the note over.
      const tipped = yield* Effect.flip(store.write(identity, "big", "x".repeat(NoteByteLimit - 10)))
      assert.strictEqual(tipped._tag, "NoteTooLarge")
      yield* fs.makeDirectory(`${root}/user`, { recursive: true })
      yield* fs.writeFileString(`${root}/user/huge.md`, "y".repeat(NoteByteLimit + 5))
      const read = yield* Effect.flip(store.read(identity, "@user/huge"))
      assert.strictEqual(read._tag, "NoteTooLarge")
    }).pipe(Effect.provide(liveNotesLayer)))

  it.live("serialises concurrent in-process updates without losing one", () =>
    Effect.gen(function*() {
      const { store, identity } = yield* withStore
      yield* store.write(identity, "log", "<!-- end -->")
      yield* Effect.forEach(
        Array.from({ length: 40 }, (_, i) => i),
        (i) => store.update(identity, "log", [{ oldText: "<!-- end -->", newText: `entry ${i}\n<!-- end -->` }]),
        { concurrency: "unbounded", discard: true }
      )
      const body = (yield* store.read(identity, "log")).body
      for (let i = 0; i < 40; i++) assert.include(body, `entry ${i}\n`)
      assert.strictEqual(body.split("\n").length, 41)
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("recovers a lock left by a dead process or older than the bound, and waits for a live one", () =>
    Effect.gen(function*() {
      const { store, identity, fs, root } = yield* withStore
      yield* store.write(identity, "n", "a")
      const lock = `${root}/sessions/sess-1/n.md.lock`
      const { hostname } = yield* Effect.promise(() => import("node:os"))
      yield* fs.writeFileString(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), token: "dead", at: 0 }))
      yield* store.update(identity, "n", [{ oldText: "a", newText: "b" }])
      assert.isFalse(yield* fs.exists(lock))

      yield* fs.writeFileString(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: "old", at: -60_000 }))
      yield* store.update(identity, "n", [{ oldText: "b", newText: "c" }])

      // pid 1 is alive: the lock holds until the wait bound.
      yield* fs.writeFileString(lock, JSON.stringify({ pid: 1, host: hostname(), token: "live", at: 0 }))
      const waiting = yield* Effect.forkChild(store.update(identity, "n", [{ oldText: "c", newText: "d" }]))
      // Let the waiting fiber take real file-system turns between steps of the test clock.
      for (let step = 0; step < 120; step++) {
        yield* TestClock.adjust("100 millis")
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
      }
      const exit = yield* Fiber.await(waiting)
      assert.isTrue(Exit.isFailure(exit))
      const error = yield* Effect.flip(Fiber.join(waiting))
      assert.strictEqual(error._tag, "NoteLocked")
      assert.strictEqual((yield* store.read(identity, "n")).body, "c")
      assert.isTrue(yield* fs.exists(lock))
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("copies a parent session's notes into a fork's empty home, once", () =>
    Effect.gen(function*() {
      const { store, identity, root } = yield* withStore
      yield* store.write(identity, "MAP", "- plan")
      yield* store.write(identity, "deep/plan", "p")
      const copied = yield* store.copySessionHome(root, "sess-1", "sess-2")
      assert.strictEqual(copied.copied, 2)
      const fork = { ...identity, sessionId: "sess-2" }
      assert.strictEqual((yield* store.read(fork, "deep/plan")).body, "p")
      yield* store.write(identity, "later", "l")
      assert.strictEqual((yield* store.copySessionHome(root, "sess-1", "sess-2")).copied, 0)
      assert.strictEqual((yield* Effect.flip(store.read(fork, "later")))._tag, "NoteNotFound")
      assert.strictEqual((yield* store.copySessionHome(root, "missing", "sess-3")).copied, 0)
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("keys linked worktrees on their main checkout, and cwd outside git", () =>
    Effect.gen(function*() {
      const { store, fs, root } = yield* withStore
      const main = `${root}/code/app`
      yield* fs.makeDirectory(`${main}/.git/worktrees/feature`, { recursive: true })
      yield* fs.makeDirectory(`${main}/src/deep`, { recursive: true })
      yield* fs.writeFileString(`${main}/.git/worktrees/feature/commondir`, "../..\n")
      const worktree = `${root}/code/app-feature`
      yield* fs.makeDirectory(worktree, { recursive: true })
      yield* fs.writeFileString(`${worktree}/.git`, `gitdir: ${main}/.git/worktrees/feature\n`)
      const plain = `${root}/plain/dir`
      yield* fs.makeDirectory(plain, { recursive: true })

      const mainKey = yield* store.projectKey(main)
      assert.match(mainKey, /^app-[0-9a-f]{8}$/)
      assert.strictEqual(yield* store.projectKey(`${main}/src/deep`), mainKey)
      assert.strictEqual(yield* store.projectKey(worktree), mainKey)
      assert.match(yield* store.projectKey(plain), /^dir-[0-9a-f]{8}$/)
      // Found at once, without a trip through the file system's thread pool per folder: the root boot waits for it.
      assert.strictEqual(Effect.runSync(store.projectKey(worktree)), mainKey)
      assert.strictEqual(Effect.runSync(store.projectRoot(`${main}/src/deep`)), main)
    }).pipe(Effect.provide(liveNotesLayer)))
})

/** A FileSystem that fails every read under `failing` with the given errno, and behaves like Node elsewhere. */
const failingFileSystem = (failing: ReadonlyArray<{ readonly under: string; readonly code: "EACCES" | "EIO" }>) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.gen(function*() {
      const real = yield* FileSystem.FileSystem
      const failure = (method: string, path: string) => {
        const rule = failing.find(({ under }) => path === under || path.startsWith(`${under}/`))
        return rule === undefined ? undefined : PlatformError.systemError({
          _tag: rule.code === "EACCES" ? "PermissionDenied" : "Unknown",
          module: "FileSystem",
          method,
          pathOrDescriptor: path,
          cause: Object.assign(new Error(rule.code), { code: rule.code })
        })
      }
      const guard = <A>(method: string, path: string, run: () => Effect.Effect<A, PlatformError.PlatformError>) => {
        const error = failure(method, path)
        return error === undefined ? run() : Effect.fail(error)
      }
      return FileSystem.FileSystem.of({
        ...real,
        readDirectoryEntries: (path) => guard("readDirectoryEntries", path, () => real.readDirectoryEntries(path)),
        readFileString: (path, encoding) => guard("readFile", path, () => real.readFileString(path, encoding)),
        stat: (path) => guard("stat", path, () => real.stat(path))
      })
    })
  ).pipe(Layer.provide(NodeFileSystem.layer))

describe("NotesStore with failing homes", () => {
  it.effect("types one failing home per snapshot and keeps the other four in the boot", () =>
    Effect.gen(function*() {
      const root = yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "pi-notes-fail-" }))
      const identity = identityAt(root)
      const seed = Effect.gen(function*() {
        const store = yield* NotesStore
        for (const address of ["plan", "@project/db", "@user/prefs", "@agent/methods", "@model/pitfalls"]) {
          yield* store.write(identity, address, `# ${address}\n`)
        }
      })
      yield* seed.pipe(Effect.provide(notesLayer.pipe(Layer.provide(nodeLayer))))

      for (const code of ["EACCES", "EIO"] as const) {
        const failing = failingFileSystem([{ under: `${root}/projects/repo-0000abcd`, code }])
        const run = <A, E>(effect: Effect.Effect<A, E, NotesStore>) =>
          Effect.provide(effect, notesLayer.pipe(Layer.provide(Layer.mergeAll(failing, NodePath.layer))))
        const snapshot = yield* run(Effect.flatMap(NotesStore, (store) => store.snapshot(identity)))
        const project = snapshot.homes[1]!
        assert.strictEqual(project._tag, "Unavailable")
        if (project._tag === "Unavailable") assert.include(project.reason, code)
        assert.deepStrictEqual(snapshot.homes.filter((home) => home._tag === "Available").map((home) => home.home), ["session", "user", "agent", "model"])

        const boot = renderBoot({ identity: bootIdentity, snapshot, budgetTokens: 6000, now: snapshot.takenAt })
        assert.deepStrictEqual(boot.unavailableHomes, ["project"])
        for (const address of ["plan.md", "@user/prefs.md", "@agent/methods.md", "@model/pitfalls.md"]) assert.include(boot.text, `- ${address}`)
        assert.notInclude(boot.text, "@project/db.md")
        assert.include(boot.text, `retry with notes_list { "home": "@project" }`)

        const listed = yield* run(Effect.flatMap(NotesStore, (store) => store.list(identity, { limit: 50 })))
        assert.strictEqual(listed.rows.length, 4)
        assert.deepStrictEqual(listed.unavailable.map((u) => u.home), ["project"])
        const searched = yield* run(Effect.flatMap(NotesStore, (store) => store.search(identity, { query: "#", limit: 50 })))
        assert.strictEqual(searched.hits.length, 4)
        assert.deepStrictEqual(searched.unavailable.map((u) => u.home), ["project"])
      }
    }).pipe(Effect.provide(nodeLayer)))
})
