import { assert, layer } from "@effect/vitest"
import { mkdirSync, renameSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { Effect, FileSystem } from "effect"
import type { HomeSnapshot, NotesSnapshot } from "../../src/notes/snapshot.ts"
import { NotesStore } from "../../src/notes/NotesStore.ts"
import type { NotesIdentity } from "../../src/notes/identity.ts"
import { identityAt, liveNotesLayer } from "../support/notesStoreFixtures.ts"

/**
 * The store keeps each home's rows between snapshots and learns of changes
 * from folder watchers and from its own writes. These tests change notes
 * behind its back (plain node:fs, as another process or an editor would)
 * and check every later snapshot shows them.
 */



const HourMs = 3_600_000

/** Writes a note as another process would, dated `hoursAgo`. */
const writeNote = (file: string, title: string, hoursAgo?: number): void => {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `# ${title}\n\nbody\n`)
  if (hoursAgo !== undefined) {
    const at = new Date(Date.now() - hoursAgo * HourMs)
    utimesSync(file, at, at)
  }
}

const setup = Effect.gen(function*() {
  const root = yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "pi-notes-cache-" }))
  const store = yield* NotesStore
  const identity = identityAt(root)
  const session = join(root, "sessions", "sess-1")
  // Thirty notes in three folders, note-0 the newest.
  for (let i = 0; i < 30; i++) writeNote(join(session, `topic-${i % 3}`, `note-${i}.md`), `Note ${i}`, i + 1)
  return { root, store, identity, session }
})

const home = (snapshot: NotesSnapshot, name: HomeSnapshot["home"]) => {
  const found = snapshot.homes.find((h) => h.home === name)
  if (found === undefined || found._tag !== "Available") throw new Error(`${name} is not available`)
  return found
}

/**
 * Takes snapshots until `ok` holds, at most about two seconds: a watcher may
 * report a change made by another process a little later on some platforms.
 */
const eventually = <E, R>(take: Effect.Effect<NotesSnapshot, E, R>, ok: (snapshot: NotesSnapshot) => boolean) =>
  Effect.gen(function*() {
    for (let attempt = 0;; attempt++) {
      const snapshot = yield* take
      if (ok(snapshot) || attempt >= 100) return snapshot
      yield* Effect.sleep("20 millis")
    }
  })

const top = (snapshot: NotesSnapshot, name: HomeSnapshot["home"]) => home(snapshot, name).recent[0]

// The real clock: these tests wait for file watchers.
layer(liveNotesLayer, { excludeTestServices: true })("NotesStore snapshot cache", (it) => {
  it.effect("a note rewritten in place by another process moves to the top with its new title", () =>
    Effect.gen(function*() {
      const { store, identity, session } = yield* setup
      const first = yield* store.snapshot(identity)
      assert.deepStrictEqual([top(first, "session")?.address, top(first, "session")?.title, home(first, "session").noteCount], [
        "topic-0/note-0.md",
        "Note 0",
        30
      ])
      // Twice, so the second read comes from the cache the first one filled.
      assert.strictEqual(top(yield* store.snapshot(identity), "session")?.address, "topic-0/note-0.md")

      writeFileSync(join(session, "topic-2", "note-20.md"), "# Twenty, rewritten\n")
      const edited = yield* eventually(store.snapshot(identity), (s) => top(s, "session")?.address === "topic-2/note-20.md")
      assert.deepStrictEqual([top(edited, "session")?.address, top(edited, "session")?.title, home(edited, "session").noteCount], [
        "topic-2/note-20.md",
        "Twenty, rewritten",
        30
      ])

      // An editor's save: a temporary file renamed over the note.
      writeFileSync(join(session, "topic-0", ".note-21.md.swp"), "# Twenty-one, saved by an editor\n")
      renameSync(join(session, "topic-0", ".note-21.md.swp"), join(session, "topic-0", "note-21.md"))
      const saved = yield* eventually(store.snapshot(identity), (s) => top(s, "session")?.address === "topic-0/note-21.md")
      assert.deepStrictEqual([top(saved, "session")?.title, home(saved, "session").recent[1]?.address, home(saved, "session").noteCount], [
        "Twenty-one, saved by an editor",
        "topic-2/note-20.md",
        30
      ])

      // Rewritten again with the same size: the title must still be read again.
      writeFileSync(join(session, "topic-0", "note-21.md"), "# Twenty-one, SAVED by an editor\n")
      const again = yield* eventually(store.snapshot(identity), (s) => top(s, "session")?.title === "Twenty-one, SAVED by an editor")
      assert.strictEqual(top(again, "session")?.title, "Twenty-one, SAVED by an editor")
    }))

  it.effect("notes added, removed and renamed by another process are reflected", () =>
    Effect.gen(function*() {
      const { store, identity, session } = yield* setup
      yield* store.snapshot(identity)

      writeNote(join(session, "new", "deeper", "idea.md"), "A new idea")
      const added = yield* eventually(store.snapshot(identity), (s) => home(s, "session").noteCount === 31)
      assert.deepStrictEqual([top(added, "session")?.address, top(added, "session")?.title], ["new/deeper/idea.md", "A new idea"])
      // A note added to the folder created a moment ago is seen as well. It is
      // dated a minute ahead: written in the same millisecond as the first, the
      // two would tie on mtime and the order would be the address's.
      writeNote(join(session, "new", "deeper", "second.md"), "Second idea", -1 / 60)
      const second = yield* eventually(store.snapshot(identity), (s) => home(s, "session").noteCount === 32)
      assert.strictEqual(top(second, "session")?.address, "new/deeper/second.md")

      unlinkSync(join(session, "new", "deeper", "second.md"))
      unlinkSync(join(session, "new", "deeper", "idea.md"))
      unlinkSync(join(session, "topic-0", "note-0.md"))
      const removed = yield* eventually(store.snapshot(identity), (s) => home(s, "session").noteCount === 29)
      assert.deepStrictEqual([top(removed, "session")?.address, home(removed, "session").noteCount], ["topic-1/note-1.md", 29])

      // A whole folder renamed, then one removed.
      renameSync(join(session, "topic-1"), join(session, "renamed"))
      const renamed = yield* eventually(store.snapshot(identity), (s) => top(s, "session")?.address === "renamed/note-1.md")
      assert.deepStrictEqual([top(renamed, "session")?.address, home(renamed, "session").noteCount], ["renamed/note-1.md", 29])
      assert.isFalse(home(renamed, "session").recent.some((row) => row.address.startsWith("topic-1/")))
      rmSync(join(session, "renamed"), { recursive: true })
      const gone = yield* eventually(store.snapshot(identity), (s) => home(s, "session").noteCount === 19)
      assert.deepStrictEqual([top(gone, "session")?.address, home(gone, "session").noteCount], ["topic-2/note-2.md", 19])

      // A listing sees the same notes.
      const listed = yield* store.list(identity, { home: "session", limit: 100 })
      assert.strictEqual(listed.rows.length, 19)
    }))

  it.effect("a home that appears after the first snapshot is read, and one that disappears is empty", () =>
    Effect.gen(function*() {
      const { store, identity, root } = yield* setup
      const agent = join(root, "agents", "pi")
      const first = yield* store.snapshot(identity)
      assert.deepStrictEqual([home(first, "agent").noteCount, home(first, "agent").map], [0, undefined])

      writeNote(join(agent, "methods.md"), "How I work")
      writeFileSync(join(agent, "MAP.md"), "- methods: how I work\n")
      const appeared = yield* eventually(store.snapshot(identity), (s) => home(s, "agent").noteCount === 1)
      assert.deepStrictEqual([top(appeared, "agent")?.title, home(appeared, "agent").map?.body], ["How I work", "- methods: how I work\n"])

      writeFileSync(join(agent, "MAP.md"), "- methods: how I work, revised\n")
      const mapped = yield* eventually(store.snapshot(identity), (s) => home(s, "agent").map?.body === "- methods: how I work, revised\n")
      assert.strictEqual(home(mapped, "agent").map?.body, "- methods: how I work, revised\n")

      // A name the home refuses to show is told while it is there.
      writeFileSync(join(agent, "bad\u0007name.md"), "# Bad")
      const refusing = yield* eventually(store.snapshot(identity), (s) => (home(s, "agent").refused ?? []).length === 1)
      assert.deepStrictEqual(home(refusing, "agent").refused, ["bad\u0007name.md"])

      rmSync(agent, { recursive: true })
      const vanished = yield* eventually(store.snapshot(identity), (s) => home(s, "agent").noteCount === 0)
      // Gone with the home: nothing left to refuse either.
      assert.deepStrictEqual([home(vanished, "agent").noteCount, home(vanished, "agent").map, home(vanished, "agent").refused], [0, undefined, undefined])

      // Created again, with other notes: the old folder's watchers must not stand in for the new one.
      writeNote(join(agent, "pitfalls.md"), "What went wrong")
      const back = yield* eventually(store.snapshot(identity), (s) => home(s, "agent").noteCount === 1)
      assert.deepStrictEqual([top(back, "agent")?.address, top(back, "agent")?.title], ["@agent/pitfalls.md", "What went wrong"])
      writeNote(join(agent, "later.md"), "Later still", -1 / 60)
      const later = yield* eventually(store.snapshot(identity), (s) => home(s, "agent").noteCount === 2)
      assert.strictEqual(top(later, "agent")?.address, "@agent/later.md")
    }))

  it.effect("the store's own writes, renames and MAP edits show in the very next snapshot", () =>
    Effect.gen(function*() {
      const { store, identity } = yield* setup
      yield* store.snapshot(identity)

      yield* store.write(identity, "fresh/brand-new/idea", "# Fresh idea\n")
      const written = yield* store.snapshot(identity)
      assert.deepStrictEqual([top(written, "session")?.address, top(written, "session")?.title, home(written, "session").noteCount], [
        "fresh/brand-new/idea.md",
        "Fresh idea",
        31
      ])

      yield* store.update(identity, "fresh/brand-new/idea", [{ oldText: "# Fresh idea", newText: "# Moved idea" }], "@project/idea")
      const moved = yield* store.snapshot(identity)
      assert.deepStrictEqual([home(moved, "session").noteCount, top(moved, "session")?.address], [30, "topic-0/note-0.md"])
      assert.deepStrictEqual([top(moved, "project")?.address, top(moved, "project")?.title], ["@project/idea.md", "Moved idea"])

      yield* store.write(identity, "MAP", "- plan\n")
      assert.strictEqual(home(yield* store.snapshot(identity), "session").map?.body, "- plan\n")
      yield* store.write(identity, "MAP", "- plan, revised\n")
      assert.strictEqual(home(yield* store.snapshot(identity), "session").map?.body, "- plan, revised\n")
    }))

  it.effect("a session home the store filled from its parent shows its notes in the next snapshot", () =>
    Effect.gen(function*() {
      const { store, identity, root } = yield* setup
      const child: NotesIdentity = { ...identity, sessionId: "sess-2" }
      // Present and empty, so it is watched before the copy.
      mkdirSync(join(root, "sessions", "sess-2"))
      assert.strictEqual(home(yield* store.snapshot(child), "session").noteCount, 0)
      const copied = yield* store.copySessionHome(identity.root, "sess-1", "sess-2")
      assert.strictEqual(copied.copied, 30)
      assert.strictEqual(home(yield* store.snapshot(child), "session").noteCount, 30)
    }))

  it.effect("its watchers never keep the process alive", () =>
    Effect.gen(function*() {
      const { store, identity } = yield* setup
      const before = process.getActiveResourcesInfo().filter((name) => name === "FSEventWrap").length
      yield* store.snapshot(identity)
      yield* store.snapshot(identity)
      assert.strictEqual(process.getActiveResourcesInfo().filter((name) => name === "FSEventWrap").length, before)
    }))
})
