import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Option } from "effect"
import { systemGit } from "../../src/layers/notes/git.ts"
import { GitFailed, type GitRunner, type SessionNoteChanges } from "../../src/services/NotesHistory.ts"
import { nodeLayer } from "../support/notesStoreFixtures.ts"
import { gitIn, historyLayer, historySession, tempRoot } from "../support/notesHistoryFixtures.ts"

const ok = (outcome: { readonly _tag: string; readonly text: string }) => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

/** The w-numbers and their tallies and notes, as the windows view gets them. */
const summary = (changes: Option.Option<SessionNoteChanges>) =>
  Option.map(changes, ({ byWindow }) =>
    [...byWindow].sort(([a], [b]) => a - b).map(([ordinal, c]) => ({ ordinal, tally: [c.added, c.modified, c.deleted], notes: c.notes.map((n) => `${n.kind} ${n.address}`) })))

describe("NotesHistory.sessionChanges", () => {
  it.effect("reads this session's window and shutdown commits by w-number, in the user's own repository beside their commits and another session's", () =>
    Effect.gen(function*() {
      const repo = yield* tempRoot("pi-hist-view-")
      gitIn(repo, "init", "-q")
      gitIn(repo, "config", "user.name", "Ada")
      gitIn(repo, "config", "user.email", "ada@example.org")
      const root = join(repo, "notes")
      mkdirSync(join(root, "user"), { recursive: true })
      writeFileSync(join(root, "user", "mine.md"), "the user's own note\n")
      gitIn(repo, "add", "-A")
      gitIn(repo, "commit", "-q", "-m", "w1 of my notes: +1 ~0 −0")
      const { tool, endWindow, withHistory } = historySession(root)

      ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
      ok(yield* tool("notes_write", { address: "@user/prefs", content: "tabs\n" }))
      yield* endWindow(1)
      // Another session's commit in the same repository, made by hand.
      writeFileSync(join(root, "user", "mine.md"), "edited\n")
      gitIn(repo, "commit", "-q", "-am", "w2 of session othersss: +0 ~1 −0")
      ok(yield* tool("notes_update", { address: "plan", edits: [{ oldText: "v1", newText: "v2" }] }))
      yield* endWindow(2)
      ok(yield* tool("notes_write", { address: "late", content: "at the end\n" }))
      yield* withHistory((history) => history.sessionEnded({ ordinal: 3 }, 5_000))

      const changes = yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 5_000 }))
      assert.deepStrictEqual(summary(changes), Option.some([
        { ordinal: 1, tally: [2, 0, 0], notes: ["added plan.md", "added @user/prefs.md"] },
        { ordinal: 2, tally: [0, 1, 0], notes: ["modified plan.md"] },
        { ordinal: 3, tally: [1, 0, 0], notes: ["added late.md"] }
      ]))
    }).pipe(Effect.provide(historyLayer())))

  it.effect("is none when git is missing, when the history is off, and before there is a repository", () =>
    Effect.gen(function*() {
      const missing: GitRunner = () => Effect.fail(new GitFailed({ command: "rev-parse", reason: "missing", detail: "git not found" }))
      const readOnly: GitRunner = (cwd, args, stdin) =>
        args[0] === "init" ? Effect.fail(new GitFailed({ command: "init", reason: "failed", detail: "Read-only file system" })) : systemGit(cwd, args, stdin)
      for (const git of [missing, readOnly]) {
        const root = yield* tempRoot("pi-hist-view-off-")
        yield* Effect.gen(function*() {
          const { tool, endWindow, withHistory } = historySession(root)
          ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
          yield* endWindow(1)
          assert.isTrue(Option.isNone(yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 5_000 }))))
        }).pipe(Effect.provide(historyLayer(git)))
      }
      const fresh = yield* tempRoot("pi-hist-view-fresh-")
      yield* Effect.gen(function*() {
        const { withHistory } = historySession(join(fresh, "not-yet"))
        assert.isTrue(Option.isNone(yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 5_000 }))))
      }).pipe(Effect.provide(historyLayer()))
    }).pipe(Effect.provide(nodeLayer)))
})
