import { assert, describe, it } from "@effect/vitest"
import { Notices } from "../../src/kernel/Notices.ts"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { GitFailed, type GitRunner, NotesVersions } from "../../src/notes/versions/NotesVersions.ts"
import { systemGit } from "../../src/notes/versions/git.ts"
import type { PiSession } from "../../src/kernel/PiSession.ts"
import { Window } from "../../src/window/Window.ts"
import { nodeLayer } from "../support/notesStoreFixtures.ts"
import { gitIn, historyLayer, historySession, SessionId, tempRoot, windowEnds } from "../support/notesVersionsFixtures.ts"

const ok = (outcome: { readonly _tag: string; readonly text: string }) => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

/** Subjects, newest first, and the files of the newest commit. */
const subjects = (root: string) => gitIn(root, "log", "--format=%s").trim().split("\n")
const filesOf = (root: string, rev: string) => gitIn(root, "show", "--name-status", "--format=", rev).trim().split("\n").sort()

const windowTrailer = (root: string) => gitIn(root, "log", "-1", "--format=%(trailers:key=Pi-Context-Window,valueonly)").trim()

describe("NotesVersions", () => {
  it.effect("hears the Window room: a window ended by a reset, then by the session's end, is committed for its own id", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-events-")
      const { session, tool } = historySession(root)
      const windows = (f: (window: Window["Service"]) => Effect.Effect<void, never, PiSession>) =>
        Effect.andThen(Effect.provide(Window.use(f), session.layer), NotesVersions.use((history) => history.awaitCommits(60_000)))
      ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
      const first = yield* Effect.provide(Window.use((window) => window.current), session.layer)
      let second = { id: "", ordinal: 0 }
      yield* windows((window) =>
        Effect.gen(function*() {
          second = yield* window.nextWindow(first)
          yield* window.reset({ from: first, to: second, source: "tool" })
        })
      )
      assert.deepStrictEqual(subjects(root), ["w1 of session histsess: +1 ~0 −0"])
      assert.strictEqual(windowTrailer(root), first.id)
      session.marker(second.id)
      ok(yield* tool("notes_write", { address: "plan", content: "v2\n" }))
      yield* windows((window) => window.sessionEnding)
      assert.deepStrictEqual(subjects(root), ["w2 of session histsess (shutdown): +0 ~1 −0", "w1 of session histsess: +1 ~0 −0"])
      assert.strictEqual(windowTrailer(root), second.id)
    }).pipe(Effect.provide(historyLayer())))

  it.effect("commits each window's changed notes at its boundary, and only this identity's notes", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-window-")
      const { tool, endWindow } = historySession(root)
      ok(yield* tool("notes_write", { address: "plan", content: "# Plan\nv1\n" }))
      ok(yield* tool("notes_write", { address: "@user/prefs", content: "tabs\n" }))
      // Another session's notes, and a lock file beside a note, are not this window's.
      mkdirSync(join(root, "sessions", "someone-else"), { recursive: true })
      writeFileSync(join(root, "sessions", "someone-else", "theirs.md"), "not mine\n")
      writeFileSync(join(root, "user", "prefs.md.lock"), "{}")
      yield* endWindow(1)
      assert.deepStrictEqual(subjects(root), ["w1 of session histsess: +2 ~0 −0"])
      assert.deepStrictEqual(filesOf(root, "HEAD"), [`A\tsessions/${SessionId}/plan.md`, "A\tuser/prefs.md"])

      ok(yield* tool("notes_update", { address: "plan", edits: [{ oldText: "v1", newText: "v2" }] }))
      ok(yield* tool("notes_write", { address: "@agent/methods", content: "small steps\n" }))
      yield* endWindow(2)
      // A window that changed nothing commits nothing.
      yield* endWindow(3)
      assert.deepStrictEqual(subjects(root), ["w2 of session histsess: +1 ~1 −0", "w1 of session histsess: +2 ~0 −0"])
      assert.deepStrictEqual(filesOf(root, "HEAD"), ["A\tagents/pi/methods.md", `M\tsessions/${SessionId}/plan.md`])
      assert.strictEqual(gitIn(root, "log", "-1", "--format=%an <%ae>").trim(), "pi-context <pi-context@localhost>")
      assert.include(gitIn(root, "status", "--porcelain"), "sessions/someone-else/")
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a restore brings back an overwritten note, and is itself a commit", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-restore-")
      const { tool, endWindow, withHistory } = historySession(root)
      ok(yield* tool("notes_write", { address: "@project/decisions", content: "# Decisions\nuse postgres\n" }))
      yield* endWindow(1)
      const first = gitIn(root, "rev-parse", "--short", "HEAD").trim()
      ok(yield* tool("notes_write", { address: "@project/decisions", content: "oops, overwritten\n" }))
      yield* endWindow(2)

      const listed = yield* withHistory((history) => history.history("@project/decisions"))
      assert.include(listed, first)
      assert.include(listed, "w2 of session histsess")
      const shown = yield* withHistory((history) => history.diff(first, "@project/decisions"))
      assert.include(shown, "+use postgres")

      const reply = yield* withHistory((history) => history.restore("@project/decisions", first))
      assert.match(reply, /^Restored @project\/decisions\.md to its version in [0-9a-f]+; the restore is commit [0-9a-f]+\.$/)
      const read = ok(yield* tool("notes_read", { address: "@project/decisions" }))
      assert.include(read, "# Decisions\nuse postgres\n")
      assert.strictEqual(subjects(root).length, 3)
      assert.match(subjects(root)[0]!, /^restore @project\/decisions\.md to [0-9a-f]{12} \(session histsess\)$/)
      assert.strictEqual(gitIn(root, "status", "--porcelain", "--", "projects").trim(), "")

      // A whole home (or every home, "all") goes back in one restore: a note added since goes too.
      ok(yield* tool("notes_write", { address: "@project/later", content: "added after\n" }))
      ok(yield* tool("notes_write", { address: "@project/decisions", content: "wrong again\n" }))
      yield* endWindow(3)
      const home = yield* withHistory((history) => history.restore("@project", first))
      assert.match(home, /^Restored @project to [0-9a-f]{12} \(2 notes\); the restore is commit [0-9a-f]+\.$/)
      assert.include(ok(yield* tool("notes_read", { address: "@project/decisions" })), "use postgres")
      assert.notInclude(ok(yield* tool("notes_list", {})), "@project/later")
      assert.match(subjects(root)[0]!, /^restore @project to [0-9a-f]{12} \(session histsess\)$/)
      assert.strictEqual(gitIn(root, "status", "--porcelain").trim(), "")

      const refused = yield* withHistory((history) => Effect.flip(history.restore("@project/decisions", "--upload-pack=x")))
      assert.include(refused.message, "is not a commit")
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a restore that outlasts the command's wait (a home of many notes) goes on in the background, and the user is told when it is done", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-restore-slow-")
      const reached = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      // The restore reading a large home's notes back from git to write them, held until the test lets it go.
      const slowGit: GitRunner = (cwd, args, stdin) =>
        args[0] === "cat-file"
          ? Effect.andThen(Deferred.succeed(reached, undefined), Effect.andThen(Deferred.await(gate), systemGit(cwd, args, stdin)))
          : systemGit(cwd, args, stdin)
      return yield* Effect.gen(function*() {
        const { tool, endWindow, withHistory } = historySession(root)
        ok(yield* tool("notes_write", { address: "@project/decisions", content: "use postgres\n" }))
        yield* endWindow(1)
        const first = gitIn(root, "rev-parse", "--short", "HEAD").trim()
        ok(yield* tool("notes_write", { address: "@project/decisions", content: "wrong\n" }))
        yield* endWindow(2)
        const asked = yield* Effect.forkChild(withHistory((history) => history.restore("@project", first)))
        yield* Deferred.await(reached)
        yield* TestClock.adjust(5_000)
        assert.strictEqual(
          yield* Fiber.join(asked),
          "pi-context: the restore of @project takes longer than a moment (many notes, or a commit ahead of it); it goes on in the background, and you are told when it is done."
        )
        assert.deepStrictEqual(yield* Notices.use((notices) => notices.takeAll), [])
        yield* Deferred.succeed(gate, undefined)
        yield* NotesVersions.use((history) => history.awaitCommits(60_000))
        const told = yield* Notices.use((notices) => notices.takeAll)
        assert.strictEqual(told.length, 1)
        assert.match(told[0]!, /^pi-context: Restored @project to [0-9a-f]{12} \(1 note\); the restore is commit [0-9a-f]+\.$/)
        assert.include(ok(yield* tool("notes_read", { address: "@project/decisions" })), "use postgres")
        assert.match(subjects(root)[0]!, /^restore @project to [0-9a-f]{12} \(session histsess\)$/)
      }).pipe(Effect.provide(historyLayer(slowGit)))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("a notes root inside the user's own repository keeps its history, identity and staged files", () =>
    Effect.gen(function*() {
      const repo = yield* tempRoot("pi-hist-user-")
      gitIn(repo, "init", "-q")
      gitIn(repo, "config", "user.name", "Ada")
      gitIn(repo, "config", "user.email", "ada@example.org")
      writeFileSync(join(repo, "README.md"), "mine\n")
      gitIn(repo, "add", "README.md")
      gitIn(repo, "commit", "-q", "-m", "the user's own commit")
      const before = gitIn(repo, "rev-parse", "HEAD").trim()
      writeFileSync(join(repo, "todo.txt"), "staged by the user\n")
      gitIn(repo, "add", "todo.txt")

      const root = join(repo, "notes")
      mkdirSync(root)
      const { tool, endWindow, withHistory } = historySession(root)
      ok(yield* tool("notes_write", { address: "plan", content: "x\n" }))
      yield* endWindow(1)

      assert.deepStrictEqual(gitIn(repo, "log", "--format=%H %an %s").trim().split("\n"), [
        `${gitIn(repo, "rev-parse", "HEAD").trim()} Ada w1 of session histsess: +1 ~0 −0`,
        `${before} Ada the user's own commit`
      ])
      assert.deepStrictEqual(filesOf(repo, "HEAD"), [`A\tnotes/sessions/${SessionId}/plan.md`])
      assert.strictEqual(gitIn(repo, "diff", "--cached", "--name-only").trim(), "todo.txt")
      const doctor = yield* withHistory((history) => history.describe)
      assert.deepStrictEqual(doctor, { ok: true, text: "note versions: your git repository, used as it is" })
      const listed = yield* withHistory((history) => history.history(undefined))
      assert.include(listed, "w1 of session histsess: +1 ~0 −0")
      assert.include(listed, "+ plan.md")
      assert.notInclude(listed, "the user's own commit")
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a root that cannot be a repository keeps today's behaviour, with one notice", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-readonly-")
      // As root, chmod does not stop writes: the failure is injected where git runs.
      const readOnlyGit: GitRunner = (cwd, args, stdin) =>
        args[0] === "init"
          ? Effect.fail(new GitFailed({ command: "init", reason: "failed", detail: `fatal: cannot mkdir ${cwd}/.git: Read-only file system` }))
          : systemGit(cwd, args, stdin)
      return yield* Effect.gen(function*() {
        const { tool, endWindow, withHistory } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
        yield* endWindow(1)
        ok(yield* tool("notes_write", { address: "plan", content: "v2\n" }))
        yield* endWindow(2)
        // Told once, though two windows ended on the read-only root.
        assert.deepStrictEqual(yield* Notices.use((notices) => notices.takeAll), [
          "pi-context: note versions are off (git init: fatal: cannot mkdir <notes root>/.git: Read-only file system); notes work as before, without commits."
        ])
        assert.include(ok(yield* tool("notes_read", { address: "plan" })), "v2")
        assert.include((yield* withHistory((h) => Effect.flip(h.history("plan")))).message, "note versions are off")
        assert.isFalse((yield* withHistory((h) => h.describe)).ok)
      }).pipe(Effect.provide(historyLayer(readOnlyGit)))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("a boundary returns before git runs: the commit is forked off the hook", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-fork-")
      const gate = yield* Deferred.make<void>()
      const gatedGit: GitRunner = (cwd, args, stdin) => Effect.andThen(Deferred.await(gate), systemGit(cwd, args, stdin))
      return yield* Effect.gen(function*() {
        const { tool, withHistory } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
        // The window's end returns while every git run is still held at the gate.
        yield* withHistory(() => windowEnds(1))
        const flushing = yield* Effect.forkChild(NotesVersions.use((history) => history.awaitCommits(60_000)))
        assert.isUndefined(flushing.pollUnsafe())
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(flushing)
        assert.deepStrictEqual(subjects(root), ["w1 of session histsess: +1 ~0 −0"])
      }).pipe(Effect.provide(historyLayer(gatedGit)))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("at session shutdown the last window's notes are committed, waiting a bounded time", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-shutdown-")
      const { tool, withHistory, endSession } = historySession(root)
      ok(yield* tool("notes_write", { address: "plan", content: "unfinished\n" }))
      yield* endSession(4)
      yield* withHistory((history) => history.awaitCommits(3_000))
      assert.deepStrictEqual(subjects(root), ["w4 of session histsess (shutdown): +1 ~0 −0"])
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a shutdown commit that hangs does not hold the session's end past its bound", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-hang-")
      const hangingGit: GitRunner = () => Effect.never
      return yield* Effect.gen(function*() {
        const { tool, withHistory, endSession } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "x\n" }))
        const ending = yield* Effect.forkChild(Effect.andThen(endSession(1), withHistory((history) => history.awaitCommits(3_000))))
        yield* TestClock.adjust(3_000)
        yield* Fiber.join(ending)
      }).pipe(Effect.provide(historyLayer(hangingGit)))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("a GIT_DIR in Pi's environment never redirects the notes' commits to another repository", () =>
    Effect.gen(function*() {
      const other = yield* tempRoot("pi-hist-other-")
      gitIn(other, "init", "-q")
      const root = yield* tempRoot("pi-hist-env-")
      const previous = process.env.GIT_DIR
      process.env.GIT_DIR = join(other, ".git")
      const { tool, endWindow } = historySession(root)
      yield* Effect.gen(function*() {
        ok(yield* tool("notes_write", { address: "plan", content: "mine\n" }))
        yield* endWindow(1)
      }).pipe(Effect.ensuring(Effect.sync(() => {
        if (previous === undefined) delete process.env.GIT_DIR
        else process.env.GIT_DIR = previous
      })))
      assert.deepStrictEqual(subjects(root), ["w1 of session histsess: +1 ~0 −0"])
      assert.strictEqual(gitIn(other, "rev-list", "--all").trim(), "")
    }).pipe(Effect.provide(historyLayer())))

  // Live clock: the retry waits real milliseconds between attempts of real git processes.
  it.live("a commit that meets another git's lock is retried, not dropped", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-lock-")
      let refusals = 2
      const busyGit: GitRunner = (cwd, args, stdin) =>
        args.includes("commit") && refusals-- > 0
          ? Effect.fail(new GitFailed({ command: "commit", reason: "failed", detail: `fatal: Unable to create '${cwd}/.git/index.lock': File exists.` }))
          : systemGit(cwd, args, stdin)
      return yield* Effect.gen(function*() {
        const { tool, withHistory } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "x\n" }))
        yield* withHistory(() => windowEnds(1))
        yield* NotesVersions.use((history) => history.awaitCommits(60_000))
        assert.deepStrictEqual(subjects(root), ["w1 of session histsess: +1 ~0 −0"])
        assert.strictEqual(refusals, -1)
        assert.deepStrictEqual(yield* Notices.use((notices) => notices.takeAll), [])
      }).pipe(Effect.provide(historyLayer(busyGit)))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("a restore first commits the notes as they are, so a hand edit not yet committed stays one restore away", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-restore-edit-")
      const { tool, endWindow, withHistory } = historySession(root)
      ok(yield* tool("notes_write", { address: "plan", content: "# Plan\nv1\n" }))
      yield* endWindow(1)
      const first = gitIn(root, "rev-parse", "--short", "HEAD").trim()
      // Edited by hand (the picker saves the file; the next boundary would commit it).
      const file = join(root, "sessions", SessionId, "plan.md")
      writeFileSync(file, gitIn(root, "show", `HEAD:sessions/${SessionId}/plan.md`).replace("v1", "edited by hand"))

      const reply = yield* withHistory((history) => history.restore("plan", first))
      assert.match(reply, /^Restored plan\.md to its version in [0-9a-f]+; the restore is commit [0-9a-f]+\.$/)
      assert.include(ok(yield* tool("notes_read", { address: "plan" })), "v1")
      assert.deepStrictEqual(subjects(root).slice(0, 2), [
        `restore plan.md to ${gitIn(root, "rev-parse", first).trim().slice(0, 12)} (session histsess)`,
        "before restore of plan.md (session histsess): +0 ~1 −0"
      ])
      assert.include(gitIn(root, "show", `HEAD~1:sessions/${SessionId}/plan.md`), "edited by hand")

      // The edit is one restore away.
      const saved = gitIn(root, "rev-parse", "--short", "HEAD~1").trim()
      yield* withHistory((history) => history.restore("plan", saved))
      assert.include(ok(yield* tool("notes_read", { address: "plan" })), "edited by hand")

      // A home, too: what changed since is committed before the home goes back.
      writeFileSync(file, "edited again\n")
      yield* withHistory((history) => history.restore("session", first))
      assert.strictEqual(subjects(root)[1], "before restore of session (session histsess): +0 ~1 −0")
      assert.include(gitIn(root, "show", `HEAD~1:sessions/${SessionId}/plan.md`), "edited again")
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a command with nothing to show says so, and a refused address is named by its reason", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-messages-")
      const { tool, endWindow, withHistory } = historySession(root)
      ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
      yield* endWindow(1)
      ok(yield* tool("notes_write", { address: "other", content: "v1\n" }))
      yield* endWindow(2)
      const head = gitIn(root, "rev-parse", "HEAD").trim().slice(0, 12)
      assert.strictEqual(
        yield* withHistory((history) => history.diff("HEAD", "plan")),
        `Commit ${head} did not change plan; /pi-context notes versions plan lists the commits that did.`
      )
      const refused = yield* withHistory((history) => Effect.flip(history.restore("../../etc/passwd", "HEAD")))
      assert.notInclude(refused.message, "[object Object]")
      assert.strictEqual(refused.message, "pi-context: \"../../etc/passwd\" is not a note address or a home: segment 1 is \"..\"; an address cannot leave its home.")
    }).pipe(Effect.provide(historyLayer())))
})
