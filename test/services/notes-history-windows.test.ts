import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Fiber, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { windowsWithNoteChanges } from "../../src/commands/windowsCommand.ts"
import { shortSessionId } from "../../src/notes/versions/versions.ts"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import * as HistoryLive from "../../src/history/HistoryLive.ts"
import { systemGit } from "../../src/notes/versions/git.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import { GitFailed, type GitRunner, type SessionNoteChanges } from "../../src/notes/versions/NotesVersions.ts"
import { Window } from "../../src/window/Window.ts"
import { historyToolHandlers, ToolLogBudgetMs } from "../../src/history/historyHandlers.ts"
import { nodeLayer } from "../support/notesStoreFixtures.ts"
import { gitIn, historyLayer, historySession, tempRoot, testWindow } from "../support/notesVersionsFixtures.ts"

const ok = (outcome: { readonly _tag: string; readonly text: string }) => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

/** The window ids and their tallies and notes, as the windows view gets them. */
const summary = (changes: Option.Option<SessionNoteChanges>) =>
  Option.map(changes, ({ byWindow }) =>
    [...byWindow.byWindowId].sort(([a], [b]) => a.localeCompare(b)).map(([id, c]) => ({ id, tally: [c.added, c.modified, c.deleted], notes: c.notes.map((n) => `${n.kind} ${n.address}`) })))

/** The history, and the Window and History rooms the windows view and history_windows read. */
const viewLayer = (git?: GitRunner) => Layer.mergeAll(HistoryLive.layer, WindowLive.layer).pipe(Layer.provideMerge(historyLayer(git)))

/** Each window of the branch with the notes its commits changed, as the windows view joins them. */
const viewedChanges = (session: { readonly layer: Layer.Layer<import("../../src/kernel/PiSession.ts").PiSession> }) =>
  Effect.provide(
    Effect.map(windowsWithNoteChanges(0), (windows) => windows.map((w) => ({ id: w.id, ordinal: w.ordinal, notes: w.noteChanges?.notes.map((n) => `${n.kind} ${n.address}`) }))),
    session.layer
  )

describe("NotesVersions.sessionChanges", () => {
  it.effect("two sessions created in the same minute on one notes root each see only their own commits in the windows view and history_windows", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-siblings-")
      // UUIDv7: the first 8 characters are the creation time, the same for both.
      const ids = ["0193aaaa-1111-7000-8000-00000000000a", "0193aaaa-1111-7000-8000-00000000000b"] as const
      assert.strictEqual(shortSessionId(ids[0]), shortSessionId(ids[1]))
      const sessions = ids.map((sessionId) => historySession(root, { sessionId }))
      for (const [i, { session, tool, endWindow }] of sessions.entries()) {
        session.user(`the first window of session ${i}`)
        yield* Effect.gen(function*() {
          ok(yield* tool("notes_write", { address: `plan-${i}`, content: `session ${i}\n` }))
          yield* endWindow(1, rootWindowId(session.sessionId))
        }).pipe(Effect.provide(viewLayer()))
      }
      assert.strictEqual(gitIn(root, "log", "--format=%s").split("\n").filter((s) => s === `w1 of session ${shortSessionId(ids[0])}: +1 ~0 −0`).length, 2)
      for (const [i, { session }] of sessions.entries()) {
        yield* Effect.gen(function*() {
          assert.deepStrictEqual(yield* viewedChanges(session), [{ id: rootWindowId(session.sessionId), ordinal: 1, notes: [`added plan-${i}.md`] }])
          const answer = ok(yield* Effect.provide(historyToolHandlers.history_windows({}), session.layer))
          const w1 = answer.split("\n").find((l) => l.includes("(w1 · ")) ?? ""
          assert.match(w1, new RegExp(` · notes committed \\+1 ~0 −0 \\(\\+plan-${i}\\.md\\)\\)`))
        }).pipe(Effect.provide(viewLayer()))
      }
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("windows with the same w-number on two tree branches are told apart by their ids", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-branches-")
      const { session, tool, endWindow } = historySession(root)
      const fork = session.user("the first window")
      const onBranch = (windowId: string, address: string) =>
        Effect.gen(function*() {
          session.moveTo(fork)
          session.marker(windowId)
          session.boot(windowId, "boot")
          const leaf = session.user(`the second window, ${windowId}`)
          ok(yield* tool("notes_write", { address, content: `${address}\n` }))
          yield* endWindow(2, windowId)
          return leaf
        })
      yield* Effect.gen(function*() {
        const first = yield* onBranch("pcx:tsession0001:aaaaaaaa", "first-branch")
        const second = yield* onBranch("pcx:tsession0001:bbbbbbbb", "second-branch")
        const w2 = (leaf: string) =>
          Effect.gen(function*() {
            session.moveTo(leaf)
            yield* (yield* Window).forget
            return (yield* viewedChanges(session))[1]
          })
        assert.deepStrictEqual(yield* w2(second), { id: "pcx:tsession0001:bbbbbbbb", ordinal: 2, notes: ["added second-branch.md"] })
        assert.deepStrictEqual(yield* w2(first), { id: "pcx:tsession0001:aaaaaaaa", ordinal: 2, notes: ["added first-branch.md"] })
      }).pipe(Effect.provide(viewLayer()))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("a window's commit carries the full session id and the window id as trailers, below the subject people read", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-trailers-")
      const sessionId = "0193aaaa-1111-7000-8000-0000000000cc"
      const { tool, endWindow, withHistory } = historySession(root, { sessionId })
      ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
      yield* endWindow(3, "pcx:0000000000cc:1a2b3c4d")
      assert.strictEqual(gitIn(root, "log", "-1", "--format=%s").trim(), "w3 of session 0193aaaa: +1 ~0 −0")
      assert.strictEqual(
        gitIn(root, "log", "-1", "--format=%B").trim(),
        `w3 of session 0193aaaa: +1 ~0 −0\n\nPi-Context-Session: ${sessionId}\nPi-Context-Window: pcx:0000000000cc:1a2b3c4d`
      )
      // git itself reads them as trailers.
      assert.strictEqual(gitIn(root, "log", "-1", "--format=%(trailers:key=Pi-Context-Session,valueonly)").trim(), sessionId)
      assert.strictEqual(gitIn(root, "log", "-1", "--format=%(trailers:key=Pi-Context-Window,valueonly)").trim(), "pcx:0000000000cc:1a2b3c4d")

      // A commit an earlier version made (no trailers) is still read, by its w-number.
      writeFileSync(join(root, "sessions", sessionId, "old.md"), "from before the trailers\n")
      gitIn(root, "add", "-A")
      gitIn(root, "commit", "-q", "-m", "w2 of session 0193aaaa: +1 ~0 −0")
      const changes = Option.getOrThrow(yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 0 }))).byWindow
      assert.deepStrictEqual([...changes.byWindowId.keys()], ["pcx:0000000000cc:1a2b3c4d"])
      assert.deepStrictEqual(changes.legacyByOrdinal.get(2)?.notes, [{ address: "old.md", kind: "added" }])
    }).pipe(Effect.provide(historyLayer())))

  it.effect("reads this session's window and shutdown commits by window id, in the user's own repository beside their commits and another session's", () =>
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
      const { tool, endWindow, withHistory, endSession } = historySession(root)

      ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
      ok(yield* tool("notes_write", { address: "@user/prefs", content: "tabs\n" }))
      yield* endWindow(1)
      // Another session's commit in the same repository, made by hand.
      writeFileSync(join(root, "user", "mine.md"), "edited\n")
      gitIn(repo, "commit", "-q", "-am", "w2 of session othersss: +0 ~1 −0")
      ok(yield* tool("notes_update", { address: "plan", edits: [{ oldText: "v1", newText: "v2" }] }))
      yield* endWindow(2)
      ok(yield* tool("notes_write", { address: "late", content: "at the end\n" }))
      yield* endSession(3)
      yield* withHistory((history) => history.awaitCommits(5_000))

      const changes = yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 5_000 }))
      assert.deepStrictEqual(summary(changes), Option.some([
        { id: testWindow(1).id, tally: [2, 0, 0], notes: ["added plan.md", "added @user/prefs.md"] },
        { id: testWindow(2).id, tally: [0, 1, 0], notes: ["modified plan.md"] },
        { id: testWindow(3).id, tally: [1, 0, 0], notes: ["added late.md"] }
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

  it.effect("a git that hangs on the log holds history_windows for its quarter-second budget only, then it answers without the note changes", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-view-hang-")
      // Everything else is the real git; the session's log never answers, as a wedged git binary would not.
      const hangsOnLog: GitRunner = (cwd, args, stdin) => (args.includes("log") ? Effect.never : systemGit(cwd, args, stdin))
      yield* Effect.gen(function*() {
        const { session, tool, endWindow } = historySession(root)
        session.user("the first window")
        ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
        yield* endWindow(1, rootWindowId(session.sessionId))
        const call = yield* Effect.forkChild(Effect.provide(historyToolHandlers.history_windows({}), session.layer))
        yield* TestClock.adjust(ToolLogBudgetMs - 1)
        assert.isUndefined(call.pollUnsafe())
        yield* TestClock.adjust(1)
        const answer = ok(yield* Fiber.join(call))
        assert.include(answer, "(w1 · ")
        assert.notInclude(answer, "notes committed")
      }).pipe(Effect.provide(viewLayer(hangsOnLog)))
    }).pipe(Effect.provide(nodeLayer)))
})
