import { assert, describe, it } from "@effect/vitest"
import { Notices } from "../../src/kernel/Notices.ts"
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { gitWithin, systemGit } from "../../src/notes/versions/git.ts"
import { CustomType } from "../../src/kernel/protocol.ts"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import * as HistoryLive from "../../src/history/HistoryLive.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import type { GitRunner } from "../../src/notes/versions/NotesVersions.ts"
import { historyToolHandlers } from "../../src/history/historyHandlers.ts"
import { messageEntry } from "../support/FakePiSession.ts"
import { nodeLayer } from "../support/notesStoreFixtures.ts"
import { gitIn, historyLayer, historySession, tempRoot, testWindow, windowEnds } from "../support/notesVersionsFixtures.ts"

const ok = (outcome: { readonly _tag: string; readonly text: string }) => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

/** Whether a process still runs (a zombie waiting for its parent to reap it has ended). */
const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  return !/^\d+ \(.*\) Z/.test(stat)
}

/**
 * The system git, except that once `commits.hang` is set each commit waits
 * for `gate`: a commit that holds the repository for as long as the test says.
 */
const gatedCommits = Effect.map(Deferred.make<void>(), (gate) => {
  const commits = { hang: false }
  const git: GitRunner = (cwd, args, stdin) =>
    commits.hang && args.includes("commit") ? Effect.andThen(Deferred.await(gate), systemGit(cwd, args, stdin)) : systemGit(cwd, args, stdin)
  return { gate, commits, git }
})

describe("the history's git runs", () => {
  it.live("a git run past its budget is ended with every process it started", () =>
    Effect.gen(function*() {
      const repo = yield* tempRoot("pi-git-group-")
      gitIn(repo, "init", "-q")
      // What a hanging hook does: a child of its own that outlives the shell that started it.
      gitIn(repo, "config", "alias.hang", `!sleep 300 & echo $! > "${join(repo, "child.pid")}"; wait`)
      const failure = yield* Effect.flip(gitWithin(500)(repo, ["hang"]))
      assert.include(failure.message, "timed out after 0.5 s and was stopped")
      const child = Number(readFileSync(join(repo, "child.pid"), "utf8").trim())
      yield* Effect.sleep("200 millis")
      assert.isFalse(running(child), `the hook's child ${child} outlived git`)
    }).pipe(Effect.provide(nodeLayer)))

  it.live("a git ended while it holds the index lock leaves no lock when it made it, and keeps one that was there before it ran", () =>
    Effect.gen(function*() {
      const repo = yield* tempRoot("pi-git-lock-")
      gitIn(repo, "init", "-q")
      const lock = join(repo, ".git", "index.lock")
      // What a commit cut mid-way does: it holds the index lock when it is ended.
      gitIn(repo, "config", "alias.holdlock", `!touch "${lock}"; echo $$ > "${join(repo, "git.pid")}"; sleep 300`)
      const timedOut = yield* Effect.flip(gitWithin(500)(repo, ["holdlock"]))
      assert.include(timedOut.message, "timed out after 0.5 s and was stopped")
      assert.isFalse(existsSync(lock), "the lock the ended git made is still there")
      assert.isFalse(running(Number(readFileSync(join(repo, "git.pid"), "utf8").trim())))

      // Interrupted (a session's end): the same.
      const fiber = yield* Effect.forkChild(gitWithin(60_000)(repo, ["holdlock"]))
      while (!existsSync(lock)) yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(fiber)
      const interrupted = Number(readFileSync(join(repo, "git.pid"), "utf8").trim())
      for (let i = 0; i < 100 && (existsSync(lock) || running(interrupted)); i++) yield* Effect.sleep("20 millis")
      assert.isFalse(existsSync(lock), "the lock the interrupted git made is still there")
      assert.isFalse(running(interrupted))

      // A lock that was there before the run is another git's: left as it is.
      writeFileSync(lock, "")
      yield* Effect.flip(gitWithin(500)(repo, ["holdlock"]))
      assert.isTrue(existsSync(lock))
    }).pipe(Effect.provide(nodeLayer)))

  it.live("a run whose working folder is gone says so, never that git is not installed", () =>
    Effect.gen(function*() {
      const gone = join(yield* tempRoot("pi-git-gone-"), "mirror-deleted-mid-round")
      const failure = yield* Effect.flip(gitWithin(5_000)(gone, ["status"]))
      assert.strictEqual(failure.reason, "failed")
      assert.include(failure.message, "working folder")
      assert.notInclude(failure.message, "git not found")
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("history_windows answers at once while a window's commit hangs, naming that window as being committed", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-git-tool-")
      const { gate, commits, git: hangingCommits } = yield* gatedCommits
      const reset = (windowId: string) => [
        { type: "custom", customType: CustomType.resetMarker, data: { windowId } },
        { type: "custom_message", customType: CustomType.boot, content: "boot", display: false, details: { windowId } }
      ]
      const { session, tool, endWindow, withHistory } = historySession(root, {
        entries: [
          messageEntry("user", "first window"),
          ...reset("pcx:hist0000:0000000b"),
          messageEntry("user", "second window"),
          ...reset("pcx:hist0000:0000000c"),
          messageEntry("user", "third window")
        ]
      })
      return yield* Effect.gen(function*() {
        ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
        // The windows as the branch names them: the view joins the commits by these ids.
        yield* endWindow(1, rootWindowId(session.sessionId))
        commits.hang = true
        ok(yield* tool("notes_write", { address: "plan", content: "v2\n" }))
        yield* withHistory(() => windowEnds(2, "pcx:hist0000:0000000b"))
        // Nothing moves the test clock: a call that waited on the commit would never answer.
        const answer = yield* Effect.provide(historyToolHandlers.history_windows({}), session.layer)
        assert.strictEqual(answer._tag, "Ok")
        const line = (ordinal: number) => answer.text.split("\n").find((l) => l.includes(`(w${ordinal} · `)) ?? ""
        assert.match(line(1), / · notes committed \+1 ~0 −0 \(\+plan\.md\)\)$/)
        assert.match(line(2), / · notes being committed\)$/)
        yield* Deferred.succeed(gate, undefined)
      }).pipe(Effect.provide(Layer.mergeAll(HistoryLive.layer, WindowLive.layer).pipe(Layer.provideMerge(historyLayer(hangingCommits)))))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("tidy's commit, a restore and doctor wait their bound for a hanging commit, then say the history is still being written (the restore: that it goes on); the commit, then the restore, land", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-git-turn-")
      const { gate, commits, git: hangingCommits } = yield* gatedCommits
      return yield* Effect.gen(function*() {
        const { tool, endWindow, withHistory } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
        yield* endWindow(1)
        const first = gitIn(root, "rev-parse", "--short", "HEAD").trim()
        // What the first commit of a large root is to a user: a commit that holds the repository for seconds.
        commits.hang = true
        ok(yield* tool("notes_write", { address: "plan", content: "v2\n" }))
        yield* withHistory(() => windowEnds(2))

        const tidy = yield* Effect.forkChild(Effect.flip(withHistory((history) => history.commitNow({ _tag: "Tidy", phase: "before" }))))
        const restore = yield* Effect.forkChild(withHistory((history) => history.restore("plan", first)))
        const doctor = yield* Effect.forkChild(withHistory((history) => history.describe))
        // Git runs in real time beside the test clock: move the clock a second at a time until every command answered.
        for (let second = 0; second < 30 && [tidy, restore, doctor].some((fiber) => fiber.pollUnsafe() === undefined); second++) {
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
          yield* TestClock.adjust("1 second")
        }
        assert.isTrue([tidy, restore, doctor].every((fiber) => fiber.pollUnsafe() !== undefined), "a command waited on the hanging commit")
        const stillWritten = "the note versions are still being written (a first commit of many notes takes a while); it goes on in the background: try again in a moment."
        assert.include((yield* Fiber.join(tidy)).message, stillWritten)
        assert.strictEqual(
          yield* Fiber.join(restore),
          "pi-context: the restore of plan.md takes longer than a moment (many notes, or a commit ahead of it); it goes on in the background, and you are told when it is done."
        )
        assert.deepStrictEqual(yield* Fiber.join(doctor), {
          ok: true,
          text: "note versions: a commit of the notes is being written; /pi-context doctor shows its state once it is done"
        })
        assert.strictEqual(gitIn(root, "rev-list", "--count", "HEAD").trim(), "1")

        yield* Deferred.succeed(gate, undefined)
        yield* withHistory((history) => history.awaitCommits(60_000))
        // The window's commit landed, then tidy's (nothing left to commit), then the restore, which the user is told of.
        assert.deepStrictEqual(gitIn(root, "log", "--format=%s").trim().split("\n").slice(0, 2), [
          `restore plan.md to ${gitIn(root, "rev-parse", first).trim().slice(0, 12)} (session histsess)`,
          "w2 of session histsess: +0 ~1 −0"
        ])
        assert.match((yield* Notices.use((notices) => notices.takeAll))[0]!, /^pi-context: Restored plan\.md to its version in [0-9a-f]+; the restore is commit [0-9a-f]+\.$/)
      }).pipe(Effect.provide(historyLayer(hangingCommits)))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("a commit cut at the session's end leaves git's index lock behind; the next commit clears a lock that old and goes through", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-git-stale-")
      yield* TestClock.setTime(Date.now())
      return yield* Effect.gen(function*() {
        const { tool, endWindow } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
        yield* endWindow(1)
        // What a git killed mid-commit (the session's end waits 3 s, then the runtime ends its fibers) leaves.
        const lock = join(root, ".git", "index.lock")
        writeFileSync(lock, "")
        const twoMinutesAgo = new Date(Date.now() - 120_000)
        utimesSync(lock, twoMinutesAgo, twoMinutesAgo)
        ok(yield* tool("notes_write", { address: "plan", content: "v2\n" }))
        yield* endWindow(2)
        assert.strictEqual(gitIn(root, "rev-list", "--count", "HEAD").trim(), "2")
        assert.isFalse(existsSync(lock))
      }).pipe(Effect.provide(historyLayer()))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("a history command does not wait on a hanging commit past its bound: it shows what is committed and says a commit is running", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-git-hang-")
      const { gate, commits, git: hangingCommits } = yield* gatedCommits
      return yield* Effect.gen(function*() {
        const { tool, endWindow, withHistory } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
        yield* endWindow(1)
        commits.hang = true
        ok(yield* tool("notes_write", { address: "plan", content: "v2\n" }))
        yield* withHistory(() => windowEnds(2))

        // history_windows never waits on it: the window is named as being committed.
        const changes = yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 0 }))
        assert.isTrue(Option.isSome(changes))
        assert.deepStrictEqual([...Option.getOrThrow(changes).pending], [testWindow(2).id])
        assert.deepStrictEqual([...Option.getOrThrow(changes).byWindow.byWindowId.keys()], [testWindow(1).id])

        const listing = yield* Effect.forkChild(withHistory((history) => history.history("plan")))
        yield* TestClock.adjust("5 seconds")
        const text = yield* Fiber.join(listing)
        assert.include(text, "w1 of session histsess: +1 ~0 −0")
        assert.notInclude(text, "w2 of session")
        assert.include(text, "(A commit of the notes is still running; this shows what was committed before it.)")
        yield* Deferred.succeed(gate, undefined)
        yield* withHistory((history) => history.awaitCommits(60_000))
        const after = yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 0 }))
        assert.deepStrictEqual([...Option.getOrThrow(after).pending], [])
        assert.deepStrictEqual([...Option.getOrThrow(after).byWindow.byWindowId.keys()].sort(), [testWindow(1).id, testWindow(2).id])
      }).pipe(Effect.provide(historyLayer(hangingCommits)))
    }).pipe(Effect.provide(nodeLayer)))
})
