import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { tidyCommand } from "../../src/notes/tidy/tidyCommand.ts"
import { parseLockOwner } from "../../src/notes/lockRules.ts"
import { tidyLimitsOf } from "../../src/notes/tidy/tidy.ts"
import { TidyLockGraceMs } from "../../src/notes/tidyLockRules.ts"
import type { TidyPass } from "../../src/notes/tidy/TidyModel.ts"
import { GitFailed, type GitRunner } from "../../src/notes/versions/NotesVersions.ts"
import { historyLayer, historySession, tempRoot } from "../support/notesVersionsFixtures.ts"
import { nodeLayer } from "../support/notesStoreFixtures.ts"

/** A pass that lists the notes, then retires `plan`, and says so. */
const listingPass = (seen: Array<string>): TidyPass => (request) =>
  Effect.gen(function*() {
    const listed = yield* request.tool("notes_list", {})
    seen.push(listed.text)
    yield* request.tool("notes_update", { address: "plan", retire: true })
    return { _tag: "Done" as const, account: "Retired plan: done.", model: "test/model" }
  }) as ReturnType<TidyPass>

const lockText = (pid: number, host: string, limitMs: number) => JSON.stringify({ pid, host, token: "other-1-x", at: 0, holdMs: limitMs + 60_000 })

describe("tidy", () => {
  it.effect("works on this session's homes only: another session's notes are neither listed nor touched", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-tidy-scope-")
      mkdirSync(join(root, "sessions", "someone-else"), { recursive: true })
      writeFileSync(join(root, "sessions", "someone-else", "plan.md"), "theirs\n")
      const { session, tool } = historySession(root)
      yield* tool("notes_write", { address: "plan", content: "mine\n" })
      const seen: Array<string> = []
      const report = yield* Effect.provide(tidyCommand([], listingPass(seen)), session.layer)
      assert.include(report, "  - retired plan.md")
      assert.notInclude(seen.join("\n"), "someone-else")
      assert.isTrue(existsSync(join(root, "sessions", "someone-else", "plan.md")))
      assert.isFalse(existsSync(join(root, ".tidy.lock")))
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a lock keeps a second tidy out while one runs, and a lock left by a process that is gone is taken over", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-tidy-lock-")
      const { session, tool } = historySession(root)
      yield* tool("notes_write", { address: "plan", content: "mine\n" })
      // The parent of this test process runs: its lock is held.
      writeFileSync(join(root, ".tidy.lock"), lockText(process.ppid, hostname(), 600_000))
      const refused = yield* Effect.provide(Effect.flip(tidyCommand([], listingPass([]))), session.layer)
      assert.match(
        refused.message,
        new RegExp(`^pi-context: another tidy is running on these notes \\(pid ${process.ppid} on ${hostname()}, started less than a minute ago\\); try again when it has finished\\. Its lock counts as abandoned 11 minutes from now at the latest\\.$`)
      )
      assert.isTrue(existsSync(join(root, "sessions", "hist-session-0001", "plan.md")))

      // No process has pid 2^22 + 1 here (Linux caps pids at 2^22).
      writeFileSync(join(root, ".tidy.lock"), lockText(4_194_305, hostname(), 600_000))
      const report = yield* Effect.provide(tidyCommand(["--dry-run"], listingPass([])), session.layer)
      assert.include(report, `Took over a tidy lock its owner left (pid 4194305 on ${hostname()}), less than a minute ago: that pass is gone.`)
      assert.include(report, "pi-context tidy (dry run: nothing was changed)")
      assert.isFalse(existsSync(join(root, ".tidy.lock")))
    }).pipe(Effect.provide(historyLayer())))

  it.effect("without a notes history (no git here) only a dry run goes ahead", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-tidy-nogit-")
      const noGit: GitRunner = (_cwd, args) => Effect.fail(new GitFailed({ command: args[0] ?? "", reason: "missing", detail: "git not found" }))
      return yield* Effect.gen(function*() {
        const { session, tool } = historySession(root)
        yield* tool("notes_write", { address: "plan", content: "mine\n" })
        const refused = yield* Effect.provide(Effect.flip(tidyCommand([], listingPass([]))), session.layer)
        assert.strictEqual(
          refused.message,
          "pi-context: note versions are off (git is not installed: no git on PATH). tidy needs the note versions to be undone; /pi-context tidy --dry-run still works."
        )
        assert.isTrue(existsSync(join(root, "sessions", "hist-session-0001", "plan.md")))
        assert.include(yield* Effect.provide(tidyCommand(["--dry-run"], listingPass([])), session.layer), "  - retired plan.md")
        assert.isTrue(existsSync(join(root, "sessions", "hist-session-0001", "plan.md")))
      }).pipe(Effect.provide(historyLayer(noGit)))
    }).pipe(Effect.provide(nodeLayer)))

  it.effect("refuses an argument it does not know", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-tidy-args-")
      const { session } = historySession(root)
      assert.strictEqual(
        (yield* Effect.provide(Effect.flip(tidyCommand(["--force"], listingPass([]))), session.layer)).message,
        "pi-context tidy: unknown argument \"--force\". Use /pi-context tidy or /pi-context tidy --dry-run."
      )
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a two-day-old lock from another host is taken over: its pass ended at its time limit long ago", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-tidy-old-lock-")
      const { session, tool } = historySession(root)
      yield* tool("notes_write", { address: "plan", content: "mine\n" })
      const lock = join(root, ".tidy.lock")
      writeFileSync(lock, lockText(1234, "another-host", 600_000))
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3_600_000)
      utimesSync(lock, twoDaysAgo, twoDaysAgo)
      const report = yield* Effect.provide(tidyCommand(["--dry-run"], listingPass([])), session.layer)
      assert.include(report, "Took over a tidy lock its owner left (pid 1234 on another-host), 48 hours ago: that pass is gone.")
      assert.include(report, "  - retired plan.md")
      assert.isFalse(existsSync(lock))
    }).pipe(Effect.provide(historyLayer())))

  it.effect("an empty or truncated lock (a crash between creating and writing it) older than a minute is taken over, as a note's lock is", () =>
    Effect.gen(function*() {
      for (const [name, text] of [["empty", ""], ["truncated", '{"pid":12']] as const) {
        const root = yield* tempRoot(`pi-tidy-${name}-lock-`)
        const { session, tool } = historySession(root)
        yield* tool("notes_write", { address: "plan", content: "mine\n" })
        const lock = join(root, ".tidy.lock")
        writeFileSync(lock, text)
        const twoMinutesAgo = new Date(Date.now() - 2 * 60_000)
        utimesSync(lock, twoMinutesAgo, twoMinutesAgo)
        const report = yield* Effect.provide(tidyCommand(["--dry-run"], listingPass([])), session.layer)
        assert.include(report, "Took over a tidy lock its owner left unreadable, 2 minutes ago: that pass is gone.")
        assert.include(report, "  - retired plan.md")
        assert.isFalse(existsSync(lock))
      }
    }).pipe(Effect.provide(historyLayer())))

  it.effect("the tidy lock is a lock file like a note's: its owner, and a hold of the pass's time limit and a minute", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-tidy-lock-kind-")
      const { session, tool } = historySession(root)
      yield* tool("notes_write", { address: "plan", content: "mine\n" })
      const seen: Array<string> = []
      const reading: TidyPass = (request) =>
        Effect.gen(function*() {
          seen.push(readFileSync(join(root, ".tidy.lock"), "utf8"))
          return yield* listingPass([])(request)
        }) as ReturnType<TidyPass>
      yield* Effect.provide(tidyCommand(["--dry-run"], reading), session.layer)
      const owner = parseLockOwner(seen[0] ?? "")
      assert.strictEqual(owner?.pid, process.pid)
      assert.strictEqual(owner?.host, hostname())
      assert.strictEqual(owner?.holdMs, tidyLimitsOf(undefined, undefined).timeMs + TidyLockGraceMs)
      assert.isFalse(existsSync(join(root, ".tidy.lock")))
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a .tidy.lock that is a folder is named with the command that clears it, and left alone", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-tidy-dir-lock-")
      const { session } = historySession(root)
      mkdirSync(join(root, ".tidy.lock"), { recursive: true })
      const refused = yield* Effect.provide(Effect.flip(tidyCommand(["--dry-run"], listingPass([]))), session.layer)
      const lock = join(root, ".tidy.lock")
      assert.strictEqual(
        refused.message,
        `pi-context: tidy cannot run: ${lock} is a folder, not a lock tidy made, so tidy cannot tell whether another pass runs. Remove it (rm -r "${lock}") and run /pi-context tidy again.`
      )
      assert.isTrue(statSync(lock).isDirectory())
    }).pipe(Effect.provide(historyLayer())))

  it.effect("a tidy-reports folder that links out of the notes root gets no report: the report says it was not saved", () =>
    Effect.gen(function*() {
      const base = yield* tempRoot("pi-tidy-reports-")
      const root = join(base, "notes")
      const outside = join(base, "elsewhere")
      mkdirSync(root)
      mkdirSync(outside)
      symlinkSync(outside, join(root, "tidy-reports"))
      const { session, tool } = historySession(root)
      yield* tool("notes_write", { address: "plan", content: "mine\n" })
      const report = yield* Effect.provide(tidyCommand(["--dry-run"], listingPass([])), session.layer)
      assert.include(report, `The report was not saved: "tidy-reports" is a symbolic link that leads outside the notes root`)
      assert.deepStrictEqual(readdirSync(outside), [])
    }).pipe(Effect.provide(historyLayer())))

  it.effect("the pass gets its turn and time limits from the settings, or the defaults", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-tidy-limits-")
      const seen: Array<unknown> = []
      const recording: TidyPass = (request) =>
        Effect.sync(() => {
          seen.push(request.limits)
          return { _tag: "Done" as const, account: "", model: "test/model" }
        })
      const defaults = historySession(root)
      yield* Effect.provide(tidyCommand(["--dry-run"], recording), defaults.session.layer)
      const set = historySession(root, { settings: { "pi-context": { notesRoot: root, tidyTurnLimit: 5, tidyTimeLimitSeconds: 30 } } })
      yield* Effect.provide(tidyCommand(["--dry-run"], recording), set.session.layer)
      assert.deepStrictEqual(seen, [{ turns: 40, timeMs: 600_000 }, { turns: 5, timeMs: 30_000 }])
    }).pipe(Effect.provide(historyLayer())))
})
