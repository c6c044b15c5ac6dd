import { assert, describe, it } from "@effect/vitest"
import { join } from "node:path"
import { Effect } from "effect"
import type { SyncTree } from "../../src/notes/sync/syncPlan.ts"
import { type Base, copyBack, copyIn, hashOf, type Seen, TrackedMap } from "../../src/notes/sync/copy.ts"
import { nodeLayer } from "../support/notesStoreFixtures.ts"
import { tempRoot } from "../support/notesVersionsFixtures.ts"
import { readNote, writeNote } from "../support/notesSyncFixtures.ts"

/** A user home and a mirror in a fresh temp folder, the home synced at `user/` in the mirror. */
const userHomeAndMirror = Effect.map(tempRoot("pi-sync-copy-"), (dir) => {
  const home = join(dir, "home")
  const tree: SyncTree = { home: "user", prefix: "user", dir: home, wastebasket: join(dir, "wastebasket") }
  return { home, mirror: join(dir, "mirror"), tree }
})

describe("notes sync: copying between a home and its mirror", () => {
  it.effect("a note written after it was copied in keeps its text; the mirror's is kept beside it at the next copy", () =>
    Effect.gen(function*() {
      const { home, mirror, tree } = yield* userHomeAndMirror
      writeNote(home, "plan.md", "v0\n")
      writeNote(mirror, "user/plan.md", "v0\n")
      const base: Base = new Map([["user/plan.md", hashOf("v0\n")!]])
      const seen: Seen = new Map()

      const copied = yield* copyIn(mirror, new Map([["user/plan.md", hashOf("v0\n")!]]), [tree], base, seen, 0)
      assert.deepStrictEqual(copied.changed, [])
      // The merge brings the remote's text into the mirror; meanwhile the model rewrites the note.
      writeNote(mirror, "user/plan.md", "theirs\n")
      writeNote(home, "plan.md", "mine\n")
      const written = yield* copyBack(mirror, [{ note: { key: "user/plan.md", tree, relative: "plan.md" }, expected: copied.here.get("user/plan.md") }], base, seen, 0)
      assert.deepStrictEqual(written, { written: 0, retired: 0, skipped: [] })
      assert.strictEqual(readNote(home, "plan.md"), "mine\n")
      assert.strictEqual(base.get("user/plan.md"), hashOf("v0\n"))

      const next = yield* copyIn(mirror, new Map([["user/plan.md", hashOf("theirs\n")!]]), [tree], base, seen, 0)
      assert.strictEqual(readNote(mirror, "user/plan.md"), "mine\n")
      assert.deepStrictEqual(next.conflicts.map(({ note, theirs }) => ({ key: note.key, theirs })), [{ key: "user/plan.md", theirs: "theirs\n" }])
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("a note unchanged since it was copied in takes the mirror's text, and a note the other side deleted goes to the wastebasket", () =>
    Effect.gen(function*() {
      const { home, mirror, tree } = yield* userHomeAndMirror
      writeNote(home, "plan.md", "v0\n")
      writeNote(home, "old.md", "retired there\n")
      writeNote(mirror, "user/plan.md", "v1 from there\n")
      writeNote(mirror, "user/new/idea.md", "new there\n")
      const base: Base = new Map([["user/plan.md", hashOf("v0\n")!], ["user/old.md", hashOf("retired there\n")!]])
      const seen: Seen = new Map()
      const head = new Map([["user/plan.md", hashOf("v1 from there\n")!], ["user/new/idea.md", hashOf("new there\n")!]])
      const copied = yield* copyIn(mirror, head, [tree], base, seen, 0)
      assert.deepStrictEqual(copied.back.map((item) => item.note.key).sort(), ["user/new/idea.md", "user/old.md", "user/plan.md"])
      assert.deepStrictEqual(yield* copyBack(mirror, copied.back, base, seen, Date.UTC(2026, 11, 1, 21, 15, 3)), { written: 2, retired: 1, skipped: [] })
      assert.strictEqual(readNote(home, "plan.md"), "v1 from there\n")
      assert.strictEqual(readNote(home, "new/idea.md"), "new there\n")
      assert.isUndefined(readNote(home, "old.md"))
      // Never deleted outright: retired as notes_delete would, where the notes tools list and restore it.
      assert.strictEqual(readNote(tree.wastebasket, "old.md"), "retired there\n")
      assert.isFalse(base.has("user/old.md"))
      // A note deleted there that this machine never had: nothing to retire, and nothing counted.
      const ghost = { key: "user/ghost.md", tree, relative: "ghost.md" }
      assert.deepStrictEqual(yield* copyBack(mirror, [{ note: ghost, expected: undefined }], base, seen, 0), { written: 0, retired: 0, skipped: [] })
    }).pipe(Effect.provide(nodeLayer)))

  it("tells a round that changed what the mirror remembers from one that only set it again", () => {
    const base = new TrackedMap([["user/plan.md", "aaa"]], (a, b) => a === b)
    base.set("user/plan.md", "aaa")
    base.delete("user/never.md")
    assert.isFalse(base.changed)
    base.set("user/plan.md", "bbb")
    assert.isTrue(base.changed)
    const seen = new TrackedMap([["user/plan.md", { stat: "3:1", blob: "aaa" }]], (a, b) => a.stat === b.stat && a.blob === b.blob)
    seen.set("user/plan.md", { stat: "3:1", blob: "aaa" })
    assert.isFalse(seen.changed)
    seen.delete("user/plan.md")
    assert.isTrue(seen.changed)
  })
})
