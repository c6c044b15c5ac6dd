import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { nodeLayer } from "../support/notesStoreFixtures.ts"
import { gitIn, historyLayer, historySession, tempRoot } from "../support/notesVersionsFixtures.ts"

/**
 * `/pi-context notes restore @user <commit>` over a home of 20,000 notes,
 * every one changed since that commit (by hand, not committed), one added and
 * one removed: the restore finishes, every note has its old text, the added
 * one is gone, the removed one is back, and the restore is one commit. How
 * long it takes is bench/notes.ts's figure (restore_20k_ms), not this test's.
 */
const Notes = 20_000
const PerFolder = 500

const noteFile = (home: string, i: number) => join(home, `topic-${Math.floor(i / PerFolder)}`, `note-${i}.md`)

describe("the restore of a large home", () => {
  it.effect(`brings back ${Notes.toLocaleString("en-US")} changed notes, removes the one added since and returns the one removed`, () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-restore-scale-")
      return yield* Effect.gen(function*() {
        const { endWindow, withHistory } = historySession(root)
        const home = join(root, "user")
        const write = (text: (i: number) => string) => {
          for (let i = 0; i < Notes; i++) {
            if (i % PerFolder === 0) mkdirSync(join(home, `topic-${i / PerFolder}`), { recursive: true })
            writeFileSync(noteFile(home, i), text(i))
          }
        }
        write((i) => `# note ${i}\n\nfirst version\n`)
        yield* endWindow(1)
        const first = gitIn(root, "rev-parse", "--short", "HEAD").trim()
        write((i) => `# note ${i}\n\nchanged by hand\n`)
        writeFileSync(join(home, "added-since.md"), "# added since\n")
        rmSync(noteFile(home, 7))

        const reply = yield* withHistory((history) => history.restore("@user", first))
        assert.match(reply, /^Restored @user to [0-9a-f]{12} \(20001 notes\); the restore is commit [0-9a-f]+\.$/)
        for (const i of [0, 7, 1_234, Notes - 1]) assert.strictEqual(readFileSync(noteFile(home, i), "utf8"), `# note ${i}\n\nfirst version\n`)
        const changed = Array.from({ length: Notes }, (_, i) => i).filter((i) => !readFileSync(noteFile(home, i), "utf8").endsWith("first version\n"))
        assert.deepStrictEqual(changed, [])
        assert.isFalse(existsSync(join(home, "added-since.md")))
        // The hand edits were saved first, and the restore itself is the newest commit; nothing is left uncommitted.
        const [restore, saved] = gitIn(root, "log", "-2", "--format=%s").trim().split("\n")
        assert.match(restore!, /^restore @user to [0-9a-f]{12} /)
        assert.match(saved!, /^before restore of @user /)
        assert.strictEqual(gitIn(root, "status", "--porcelain", "--", "user").trim(), "")
        assert.isFalse(existsSync(join(root, ".git", "index.lock")))
      }).pipe(Effect.provide(historyLayer()))
    }).pipe(Effect.provide(nodeLayer)), 600_000)
})
