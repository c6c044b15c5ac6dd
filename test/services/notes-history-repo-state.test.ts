import { assert, describe, it } from "@effect/vitest"
import { Notices } from "../../src/kernel/Notices.ts"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Option } from "effect"
import { systemGit } from "../../src/notes/versions/git.ts"
import { GitFailed, type GitRunner } from "../../src/notes/versions/NotesVersions.ts"
import { nodeLayer } from "../support/notesStoreFixtures.ts"
import { gitIn, historyLayer, historySession, SessionId, tempRoot, testWindow } from "../support/notesVersionsFixtures.ts"

const ok = (outcome: { readonly _tag: string; readonly text: string }) => {
  assert.strictEqual(outcome._tag, "Ok", outcome.text)
  return outcome.text
}

/** Every notice the history has queued, in order. */
const allNotices = Notices.use((notices) => notices.takeAll)

/** A user's repository with the notes root at `notes/`, one commit on `main` and a branch `other` that diverged from it. */
const userRepo = (repo: string) => {
  gitIn(repo, "init", "-q", "-b", "main")
  gitIn(repo, "config", "user.name", "Ada")
  gitIn(repo, "config", "user.email", "ada@example.org")
  writeFileSync(join(repo, "code.txt"), "base\n")
  gitIn(repo, "add", "code.txt")
  gitIn(repo, "commit", "-q", "-m", "base")
  gitIn(repo, "checkout", "-q", "-b", "other")
  writeFileSync(join(repo, "code.txt"), "theirs\n")
  gitIn(repo, "commit", "-q", "-am", "theirs")
  gitIn(repo, "checkout", "-q", "main")
  writeFileSync(join(repo, "code.txt"), "ours\n")
  gitIn(repo, "commit", "-q", "-am", "ours")
  const root = join(repo, "notes")
  mkdirSync(root)
  return root
}

/** Each state a user's repository can be left in that pi-context must not commit into, and how to get there. */
const busyStates: ReadonlyArray<{ readonly name: string; readonly said: string; readonly enter: (repo: string) => void }> = [
  { name: "a merge", said: "in the middle of a merge", enter: (repo) => gitIn(repo, "merge", "-q", "-s", "ours", "--no-ff", "--no-commit", "other") },
  {
    name: "a rebase",
    said: "in the middle of a rebase",
    enter: (repo) => {
      try {
        gitIn(repo, "rebase", "-q", "other")
      } catch {
        // Stopped at the conflict, as a user's rebase does.
      }
    }
  },
  {
    name: "a cherry-pick",
    said: "in the middle of a cherry-pick",
    enter: (repo) => {
      try {
        gitIn(repo, "cherry-pick", "other")
      } catch {
        // Stopped at the conflict.
      }
    }
  },
  { name: "a bisect", said: "in the middle of a bisect", enter: (repo) => gitIn(repo, "bisect", "start") },
  { name: "a detached HEAD", said: "on a detached HEAD", enter: (repo) => gitIn(repo, "checkout", "-q", "--detach") }
]

describe("the notes history in a repository it did not make", () => {
  for (const state of busyStates) {
    it.effect(`during ${state.name} it commits nothing, says so once, and leaves the index as it was`, () =>
      Effect.gen(function*() {
        const repo = yield* tempRoot("pi-hist-busy-")
        const root = userRepo(repo)
        state.enter(repo)
        const head = gitIn(repo, "rev-parse", "HEAD").trim()
        const refs = gitIn(repo, "for-each-ref", "--format=%(refname) %(objectname)")
        const staged = gitIn(repo, "diff", "--cached", "--name-only")
        const { tool, endWindow } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
        yield* endWindow(1)
        ok(yield* tool("notes_write", { address: "plan", content: "v2\n" }))
        yield* endWindow(2)
        assert.strictEqual(gitIn(repo, "rev-parse", "HEAD").trim(), head)
        assert.strictEqual(gitIn(repo, "for-each-ref", "--format=%(refname) %(objectname)"), refs)
        assert.strictEqual(gitIn(repo, "diff", "--cached", "--name-only"), staged)
        const notices = yield* allNotices
        assert.strictEqual(notices.length, 1, notices.join("\n"))
        assert.include(notices[0], `the notes root's git repository is ${state.said}, so no note versions are committed there`)
      }).pipe(Effect.provide(historyLayer())))
  }

  it.effect("commits the notes once the user's merge is concluded and the repository is back on a branch", () =>
    Effect.gen(function*() {
      const repo = yield* tempRoot("pi-hist-merge-")
      const root = userRepo(repo)
      gitIn(repo, "merge", "-q", "-s", "ours", "--no-ff", "--no-commit", "other")
      const { tool, endWindow, withHistory } = historySession(root)
      ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
      yield* endWindow(1)
      // The windows view says why the window's notes are not committed, rather than "none".
      const waiting = Option.getOrThrow(yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 0 })))
      assert.deepStrictEqual([...waiting.waiting], [[testWindow(1).id, "in the middle of a merge"]])
      const doctor = yield* withHistory((history) => history.describe)
      assert.isFalse(doctor.ok)
      assert.include(doctor.text, "waiting: the repository is in the middle of a merge")
      const restore = yield* withHistory((history) => Effect.flip(history.restore("plan", "HEAD")))
      assert.include(restore.message, "is in the middle of a merge; nothing is committed there until it is back on a branch. Nothing was restored")
      // Tidy's commit before its pass is refused the same way (tidy then goes no further than a dry run).
      const tidyBefore = yield* withHistory((history) => Effect.flip(history.commitNow({ _tag: "Tidy", phase: "before" })))
      assert.strictEqual(
        tidyBefore.message,
        "pi-context: the notes root's git repository is in the middle of a merge; nothing is committed there until it is back on a branch."
      )

      gitIn(repo, "commit", "-q", "-m", "the user's merge")
      assert.strictEqual(gitIn(repo, "log", "-1", "--format=%s").trim(), "the user's merge")
      yield* endWindow(2)
      assert.strictEqual(gitIn(repo, "log", "-1", "--format=%s %P").split(" ").length, 1 + "w2 of session histsess: +1 ~0 −0".split(" ").length)
      assert.strictEqual(gitIn(repo, "log", "-1", "--format=%s").trim(), "w2 of session histsess: +1 ~0 −0")
      assert.deepStrictEqual(gitIn(repo, "show", "--name-only", "--format=", "HEAD").trim().split("\n"), [`notes/sessions/${SessionId}/plan.md`])
      assert.isTrue((yield* withHistory((history) => history.describe)).ok)
      assert.strictEqual(Option.getOrThrow(yield* withHistory((history) => history.sessionChanges({ waitForCommitsMs: 0 }))).waiting.size, 0)
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a commit that fails leaves the user's index as it found it: their staged work and their staged note", () =>
    Effect.gen(function*() {
      const repo = yield* tempRoot("pi-hist-failed-")
      const root = userRepo(repo)
      mkdirSync(join(root, "user"), { recursive: true })
      writeFileSync(join(root, "user", "prefs.md"), "staged by the user\n")
      writeFileSync(join(repo, "todo.txt"), "mine\n")
      gitIn(repo, "add", "todo.txt", "notes/user/prefs.md")
      writeFileSync(join(root, "user", "prefs.md"), "edited since\n")
      const index = gitIn(repo, "ls-files", "-s")
      const failingCommit: GitRunner = (cwd, args, stdin) =>
        args.includes("commit")
          ? Effect.fail(new GitFailed({ command: "commit", reason: "failed", detail: "hook prepare-commit-msg exited with 1" }))
          : systemGit(cwd, args, stdin)
      return yield* Effect.gen(function*() {
        const { tool, endWindow } = historySession(root)
        ok(yield* tool("notes_write", { address: "plan", content: "new note\n" }))
        ok(yield* tool("notes_write", { address: "@user/other", content: "another\n" }))
        yield* endWindow(1)
        assert.strictEqual(gitIn(repo, "ls-files", "-s"), index)
        assert.strictEqual(gitIn(repo, "log", "-1", "--format=%s").trim(), "ours")
        const notices = yield* allNotices
        assert.deepStrictEqual(notices, [
          "pi-context: could not commit the note versions (git commit: hook prepare-commit-msg exited with 1); your notes are saved, only their versions are behind."
        ])
      }).pipe(Effect.provide(historyLayer(failingCommit)))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("the user's hooks and file system monitor never run for its commits: a hanging prepare-commit-msg does not hold them", () =>
    Effect.gen(function*() {
      const repo = yield* tempRoot("pi-hist-hooks-")
      const root = userRepo(repo)
      const ran = join(repo, "hook-ran")
      const hook = join(repo, ".git", "hooks", "prepare-commit-msg")
      writeFileSync(hook, `#!/bin/sh\ntouch "${ran}"\nsleep 30\n`, { mode: 0o755 })
      const monitor = join(repo, "fsmonitor.sh")
      writeFileSync(monitor, `#!/bin/sh\ntouch "${ran}.fsmonitor"\nsleep 30\n`, { mode: 0o755 })
      gitIn(repo, "config", "core.fsmonitor", monitor)
      const { tool, endWindow } = historySession(root)
      ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
      const started = Date.now()
      yield* endWindow(1)
      assert.isBelow(Date.now() - started, 10_000)
      assert.strictEqual(gitIn(repo, "-c", "core.fsmonitor=false", "log", "-1", "--format=%s").trim(), "w1 of session histsess: +1 ~0 −0")
      assert.isFalse(existsSync(ran), "the prepare-commit-msg hook ran")
      assert.isFalse(existsSync(`${ran}.fsmonitor`), "the fsmonitor hook ran")
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a .gitignore that hides notes is named once as a notice and in doctor", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-hist-ignored-")
      writeFileSync(join(root, ".gitignore"), "# mine\n*.md\n")
      const { tool, endWindow, withHistory } = historySession(root)
      ok(yield* tool("notes_write", { address: "plan", content: "v1\n" }))
      yield* endWindow(1)
      ok(yield* tool("notes_write", { address: "@user/prefs", content: "tabs\n" }))
      yield* endWindow(2)
      const notices = yield* allNotices
      assert.deepStrictEqual(notices, [
        "pi-context: git ignores notes in the notes root (.gitignore:2 \"*.md\", e.g. plan.md), " +
        "so no version of them is ever committed; change that rule so it leaves the notes in."
      ])
      const doctor = yield* withHistory((history) => history.describe)
      assert.isFalse(doctor.ok)
      assert.include(doctor.text, "notes are ignored by git (.gitignore:2 \"*.md\", e.g. ")
      assert.include(doctor.text, "and never committed; change that rule so it leaves the notes in")
    }).pipe(Effect.provide(historyLayer())))
})
