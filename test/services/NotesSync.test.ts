import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { renameSync, rmSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { syncStatusText } from "../../src/notes/sync/syncView.ts"
import { bareRemote, filesIn, git, isolateGit, machine, readNote, writeNote } from "../support/notesSyncFixtures.ts"
import { tempDir } from "../support/tempDirs.ts"
import type { SyncableHome } from "../../src/settings/sync.ts"

let restoreGit: () => void = () => {}
beforeAll(() => {
  restoreGit = isolateGit()
})
afterAll(() => restoreGit())

const scratch = () => Effect.acquireRelease(Effect.sync(() => tempDir("pi-sync-")), (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))

/** Two machines, each with a notes root of its own, syncing `homes` through one fresh bare remote on the branch `notes`. */
const twoMachines = (homes: ReadonlyArray<SyncableHome>) =>
  Effect.gen(function*() {
    const dir = yield* scratch()
    const remote = bareRemote(dir)
    const setting = [{ homes, remote, branch: "notes" }]
    return { dir, remote, a: yield* machine(join(dir, "a"), setting), b: yield* machine(join(dir, "b"), setting) }
  })

describe("NotesSync", () => {
  it.effect("two roots editing different notes converge after a pull on each", () =>
    Effect.gen(function*() {
      const { remote, a, b } = yield* twoMachines(["user", "agent"])
      writeNote(a.root, "user/prefs.md", "tabs, not spaces\n")
      writeNote(a.root, "agents/pi/methods.md", "small steps\n")
      writeNote(b.root, "user/team.md", "reviews on Fridays\n")

      yield* a.push
      yield* b.push
      yield* a.pull

      for (const root of [a.root, b.root]) {
        assert.deepStrictEqual(filesIn(root, "user"), ["prefs.md", "team.md"])
        assert.strictEqual(readNote(root, "user/prefs.md"), "tabs, not spaces\n")
        assert.strictEqual(readNote(root, "user/team.md"), "reviews on Fridays\n")
        assert.strictEqual(readNote(root, "agents/pi/methods.md"), "small steps\n")
      }
      // The remote's tree holds the homes at the paths every machine shares.
      assert.deepStrictEqual(git(remote, "ls-tree", "-r", "--name-only", "notes").trim().split("\n").sort(), [
        "agents/pi/methods.md",
        "user/prefs.md",
        "user/team.md"
      ])
      const [stateA] = yield* a.states
      assert.strictEqual(stateA?.lastPull?._tag, "Ok")
      assert.strictEqual(stateA?.lastPull?.detail, "1 note pulled")
      assert.strictEqual(stateA?.behind, 0)
      const [stateB] = yield* b.states
      assert.strictEqual(stateB?.lastPush?._tag, "Ok")
      assert.strictEqual(stateB?.pushPending, false)
      assert.deepStrictEqual(yield* a.notices, [])
      // The mirrors never show in the notes root's own repository.
      git(a.root, "init", "-q")
      assert.notInclude(git(a.root, "status", "--porcelain", "--untracked-files=all"), ".sync")
    }))

  it.effect("a note changed on both sides keeps this machine's text, the other side's beside it, listed until the user resolves it", () =>
    Effect.gen(function*() {
      const { remote, a, b } = yield* twoMachines(["user"])
      writeNote(a.root, "user/plan.md", "v0\n")
      yield* a.push
      yield* b.pull
      assert.strictEqual(readNote(b.root, "user/plan.md"), "v0\n")

      writeNote(a.root, "user/plan.md", "A's plan\n")
      writeNote(b.root, "user/plan.md", "B's plan\n")
      yield* a.push
      yield* b.push

      assert.strictEqual(readNote(b.root, "user/plan.md"), "B's plan\n")
      const copies = filesIn(b.root, "user").filter((name) => name !== "plan.md")
      assert.strictEqual(copies.length, 1)
      assert.match(copies[0]!, /^plan\.conflict-\d{8}T\d{6}Z\.md$/)
      assert.strictEqual(readNote(b.root, `user/${copies[0]}`), "A's plan\n")
      const [state] = yield* b.states
      assert.deepStrictEqual(state?.conflicts.map(({ home, note, copy }) => ({ home, note, copy })), [{ home: "user", note: "plan.md", copy: copies[0]! }])
      // The pull says what it did: it was not "up to date".
      assert.strictEqual(state?.lastPull?._tag === "Ok" && state.lastPull.detail, "1 conflict kept beside its note")
      assert.match(syncStatusText([state!], state!.lastPull!.atMs, { globalSettings: "~/.pi/agent/settings.json", ignored: [] }), /\n  last pull: ok just now \(1 conflict kept beside its note\)\n/)
      const notices = yield* b.notices
      assert.strictEqual(notices.length, 1)
      assert.include(notices[0]!, `@user/${copies[0]}`)
      // The conflict copy is this machine's own: never pushed.
      assert.notInclude(git(remote, "ls-tree", "-r", "--name-only", "notes"), "conflict")

      // The user merges the two texts into the note and retires the copy.
      writeNote(b.root, "user/plan.md", "A's and B's plan\n")
      rmSync(join(b.root, "user", copies[0]!))
      yield* b.push
      assert.deepStrictEqual((yield* b.states)[0]?.conflicts, [])
      yield* a.pull
      assert.strictEqual(readNote(a.root, "user/plan.md"), "A's and B's plan\n")
      assert.deepStrictEqual(filesIn(a.root, "user"), ["plan.md"])
    }))

  it.effect("the machine whose edit lost a conflict is told when it pulls, with where its text is kept", () =>
    Effect.gen(function*() {
      const { a, b } = yield* twoMachines(["user"])
      writeNote(a.root, "user/plan.md", "v0\n")
      yield* a.push
      yield* b.pull
      writeNote(a.root, "user/plan.md", "A's plan\n")
      writeNote(b.root, "user/plan.md", "B's plan\n")
      yield* a.push
      // B keeps its own text, and A's beside it as a conflict copy; B's merge names the note.
      yield* b.push
      yield* b.notices
      yield* a.pull
      assert.strictEqual(readNote(a.root, "user/plan.md"), "B's plan\n")
      const notices = yield* a.notices
      assert.strictEqual(notices.length, 1, notices.join("\n"))
      const told = /^pi-context: @user\/plan\.md changed both here and on another machine .*and that machine kept its own text: this machine's edit is no longer in the note\. .*\(git -C (\S+) show ([0-9a-f]+):user\/plan\.md\)\.$/.exec(notices[0]!)
      assert.isNotNull(told, notices[0])
      // The command the notice gives shows this machine's text.
      assert.strictEqual(git(told![1]!, "show", `${told![2]}:user/plan.md`), "A's plan\n")
      // Told once: the next pull brings nothing new.
      yield* a.pull
      assert.deepStrictEqual(yield* a.notices, [])
      assert.deepStrictEqual(yield* b.notices, [])
    }))

  it.effect("a note the other machine deleted is moved to this machine's wastebasket, never deleted, and the pull says so", () =>
    Effect.gen(function*() {
      const { remote, a, b } = yield* twoMachines(["user", "agent"])
      writeNote(a.root, "user/old-plan.md", "the plan we dropped\n")
      writeNote(a.root, "agents/pi/habits/tests.md", "test first\n")
      writeNote(a.root, "user/keep.md", "kept\n")
      yield* a.push
      yield* b.pull

      rmSync(join(b.root, "user", "old-plan.md"))
      rmSync(join(b.root, "agents", "pi", "habits", "tests.md"))
      yield* b.push
      yield* a.pull

      assert.deepStrictEqual(filesIn(a.root, "user"), ["keep.md"])
      assert.isUndefined(readNote(a.root, "agents/pi/habits/tests.md"))
      assert.strictEqual(readNote(a.root, "wastebasket/user/old-plan.md"), "the plan we dropped\n")
      assert.strictEqual(readNote(a.root, "wastebasket/agents/pi/habits/tests.md"), "test first\n")
      const [state] = yield* a.states
      assert.strictEqual(state?.lastPull?._tag === "Ok" && state.lastPull.detail, "2 notes deleted elsewhere, moved to the wastebasket")
      // The wastebasket is this machine's own: nothing of it is pushed, and the deletion stands on the remote.
      yield* a.push
      assert.deepStrictEqual(git(remote, "ls-tree", "-r", "--name-only", "notes").trim().split("\n"), ["user/keep.md"])
    }))

  it.effect("a push after a window that changed no synced note fetches nothing; a change, a failed push, session start and sync now still reach the remote", () =>
    Effect.gen(function*() {
      const { remote, a, b } = yield* twoMachines(["user"])
      writeNote(a.root, "user/prefs.md", "tabs\n")
      yield* a.push
      assert.strictEqual(a.fetches(), 1)

      yield* a.push
      yield* a.push
      assert.strictEqual(a.fetches(), 1)
      assert.lengthOf(a.traced.filter((line) => line.includes("sync.unchanged")), 2)

      // Another machine's change is not fetched by a push with nothing to send, but by the next pull and by sync now.
      writeNote(b.root, "user/team.md", "reviews on Fridays\n")
      yield* b.push
      yield* a.pull
      assert.strictEqual(a.fetches(), 2)
      assert.strictEqual(readNote(a.root, "user/team.md"), "reviews on Fridays\n")
      yield* a.now
      assert.strictEqual(a.fetches(), 3)

      writeNote(a.root, "user/prefs.md", "spaces after all\n")
      yield* a.push
      assert.strictEqual(a.fetches(), 4)
      assert.strictEqual(git(remote, "show", "notes:user/prefs.md"), "spaces after all\n")
      yield* a.push
      assert.strictEqual(a.fetches(), 4)

      // A push that failed is tried again at the next commit even though no note changed since.
      const moved = `${remote}.away`
      renameSync(remote, moved)
      writeNote(a.root, "user/prefs.md", "tabs again\n")
      yield* a.push
      assert.isTrue((yield* a.states)[0]?.pushPending)
      renameSync(moved, remote)
      yield* a.push
      assert.strictEqual(a.fetches(), 6)
      assert.strictEqual(git(remote, "show", "notes:user/prefs.md"), "tabs again\n")
      assert.isFalse((yield* a.states)[0]?.pushPending)
    }))

  it.effect("a remote force-pushed to an unrelated history: nothing merged or pushed, no local note lost, a backup ref, the divergence reported; the user's command merges both", () =>
    Effect.gen(function*() {
      const dir = yield* scratch()
      const remote = bareRemote(dir)
      const a = yield* machine(join(dir, "a"), [{ homes: ["user"], remote, branch: "notes" }])
      writeNote(a.root, "user/prefs.md", "tabs\n")
      yield* a.push

      // Someone replaces the branch with a history of its own.
      const other = join(dir, "other")
      git(dir, "init", "-q", other)
      writeNote(other, "user/theirs.md", "from elsewhere\n")
      git(other, "add", "-A")
      git(other, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "-m", "rewrite")
      git(other, "push", "-q", "--force", remote, "HEAD:refs/heads/notes")
      const rewritten = git(remote, "rev-parse", "notes").trim()

      writeNote(a.root, "user/later.md", "written after\n")
      yield* a.push
      assert.strictEqual(git(remote, "rev-parse", "notes").trim(), rewritten)
      assert.deepStrictEqual(filesIn(a.root, "user"), ["later.md", "prefs.md"])
      const [state] = yield* a.states
      assert.isDefined(state?.diverged)
      assert.match(state!.diverged!.backupRef, /^refs\/pi-context\/backup\/\d{8}T\d{6}Z$/)
      assert.strictEqual(state?.lastPush?._tag === "Failed" && state.lastPush.kind, "diverged")
      assert.isTrue(state?.pushPending)
      const mirror = join(a.root, ".sync", filesIn(a.root, ".sync").find((name) => name !== ".gitignore")!)
      assert.deepStrictEqual(git(mirror, "ls-tree", "-r", "--name-only", state!.diverged!.backupRef).trim().split("\n"), ["user/later.md", "user/prefs.md"])
      const notices = yield* a.notices
      assert.strictEqual(notices.length, 1)
      assert.include(notices[0]!, "rewritten")
      assert.include(notices[0]!, "/pi-context notes sync now")
      // Another commit while diverged: still nothing pushed, and no second notice.
      yield* a.push
      assert.strictEqual(git(remote, "rev-parse", "notes").trim(), rewritten)
      assert.deepStrictEqual(yield* a.notices, [])

      const [resolved] = yield* a.now
      assert.isUndefined(resolved?.diverged)
      assert.strictEqual(resolved?.lastPush?._tag, "Ok")
      assert.deepStrictEqual(filesIn(a.root, "user"), ["later.md", "prefs.md", "theirs.md"])
      // Pushed without force: the rewritten history is still in the remote's branch.
      assert.doesNotThrow(() => git(remote, "merge-base", "--is-ancestor", rewritten, "notes"))
      assert.deepStrictEqual(git(remote, "ls-tree", "-r", "--name-only", "notes").trim().split("\n"), ["user/later.md", "user/prefs.md", "user/theirs.md"])
    }))

  it.live("two sessions on one notes root syncing the same remote at once take turns at the mirror, and neither fails", () =>
    Effect.gen(function*() {
      const dir = yield* scratch()
      const remote = bareRemote(dir)
      const homes = [{ homes: ["user"] as const, remote, branch: "notes" }]
      const first = yield* machine(join(dir, "a"), homes, { sessionId: "first" })
      const second = yield* machine(join(dir, "a"), homes, { sessionId: "second" })
      writeNote(first.root, "user/prefs.md", "tabs\n")
      writeNote(first.root, "user/team.md", "reviews on Fridays\n")
      yield* Effect.all([first.push, second.push], { concurrency: 2 })
      assert.deepStrictEqual(git(remote, "ls-tree", "-r", "--name-only", "notes").trim().split("\n"), ["user/prefs.md", "user/team.md"])
      const all = [...(yield* first.notices), ...(yield* second.notices)]
      assert.deepStrictEqual(all, [])
      for (const session of [first, second]) assert.strictEqual((yield* session.states)[0]?.lastPush?._tag, "Ok")
    }))

  it.effect("a remote written as ~/path is the user's home's, as a shell would take it", () =>
    Effect.gen(function*() {
      const dir = yield* scratch()
      const remote = bareRemote(dir)
      const saved = process.env.HOME
      process.env.HOME = dir
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (saved === undefined) delete process.env.HOME
          else process.env.HOME = saved
        })
      )
      const a = yield* machine(join(dir, "a"), [{ homes: ["user"], remote: "~/notes.git", branch: "notes" }])
      writeNote(a.root, "user/prefs.md", "tabs\n")
      yield* a.push
      assert.strictEqual(git(remote, "ls-tree", "-r", "--name-only", "notes").trim(), "user/prefs.md")
      assert.strictEqual((yield* a.states)[0]?.remote, "~/notes.git")
    }))

  it.effect("a missing remote: one notice, the session goes on with local notes", () =>
    Effect.gen(function*() {
      const dir = yield* scratch()
      const a = yield* machine(join(dir, "a"), [{ homes: ["user"], remote: join(dir, "no-such.git"), branch: "notes" }])
      writeNote(a.root, "user/prefs.md", "tabs\n")
      yield* a.pull
      yield* a.push
      const notices = yield* a.notices
      assert.strictEqual(notices.length, 1)
      assert.include(notices[0]!, `could not reach ${join(dir, "no-such.git")} (notes)`)
      // Git's words name the remote, never the notes root's paths.
      assert.notInclude(notices[0]!, a.root)
      const [state] = yield* a.states
      assert.strictEqual(state?.lastPull?._tag === "Failed" && state.lastPull.kind, "unreachable")
      assert.isTrue(state?.pushPending)
      assert.strictEqual(readNote(a.root, "user/prefs.md"), "tabs\n")
    }))

  it.effect("a remote that hangs is cut at the budget, with one notice, and session start does not wait for it", () =>
    Effect.gen(function*() {
      const dir = yield* scratch()
      const saved = process.env.GIT_SSH_COMMAND
      process.env.GIT_SSH_COMMAND = "sh -c 'sleep 30' --"
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (saved === undefined) delete process.env.GIT_SSH_COMMAND
          else process.env.GIT_SSH_COMMAND = saved
        })
      )
      const a = yield* machine(join(dir, "a"), [{ homes: ["user"], remote: "ssh://git@hangs.invalid/notes.git", branch: "notes" }], { budgetMs: 800 })
      const began = performance.now()
      yield* a.started
      const startedMs = performance.now() - began
      yield* a.awaitRounds
      const cutMs = performance.now() - began
      assert.isBelow(startedMs, 100)
      assert.isAtLeast(cutMs, 700)
      assert.isBelow(cutMs, 5_000)
      const [state] = yield* a.states
      assert.strictEqual(state?.lastPull?._tag === "Failed" && state.lastPull.kind, "timeout")
      yield* a.pull
      const notices = yield* a.notices
      assert.strictEqual(notices.length, 1)
      assert.include(notices[0]!, "timed out")
    }))

  it.effect("credentials in a remote's URL never reach a notice, the trace or the states", () =>
    Effect.gen(function*() {
      const dir = yield* scratch()
      // Port 9 on this machine refuses at once: git's error names the URL it tried.
      const a = yield* machine(join(dir, "a"), [{ homes: ["user"], remote: "https://alice:s3cr3t-t0ken@127.0.0.1:9/notes.git", branch: "notes" }])
      writeNote(a.root, "user/prefs.md", "tabs\n")
      yield* a.push
      const notices = yield* a.notices
      const states = yield* a.states
      assert.strictEqual(notices.length, 1)
      const shown = [...notices, JSON.stringify(states), ...a.traced].join("\n")
      assert.include(shown, "127.0.0.1")
      assert.notInclude(shown, "s3cr3t")
      assert.notInclude(shown, "alice")
      assert.isAbove(a.traced.filter((line) => line.includes("sync.")).length, 0)
      // Nor on disk: the URL is handed to git per run, never written into the mirror.
      const mirror = join(a.root, ".sync", filesIn(a.root, ".sync").find((name) => name !== ".gitignore")!)
      assert.notInclude(git(mirror, "config", "--list", "--local"), "s3cr3t")
    }))

  it.effect("with each entry ignored, syncs nothing and says why, naming the global settings file this session reads", () =>
    Effect.gen(function*() {
      const dir = yield* scratch()
      const a = yield* machine(join(dir, "a"), [{ homes: ["nowhere" as never], remote: bareRemote(dir) }])
      assert.deepStrictEqual(yield* a.states, [])
      const setup = yield* a.setup
      assert.strictEqual(setup.globalSettings, "/tmp/pi-context-fake-agent/settings.json")
      assert.lengthOf(setup.ignored, 1)
      assert.match(setup.ignored[0]!, /pi-context\.sync\[0\]\.homes\[0\] = "nowhere" is not a home .*; it is ignored\.$/)
    }))
})
