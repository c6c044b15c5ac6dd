import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { tidyCommand } from "../../src/commands/tidy.ts"
import type { TidyPass } from "../../src/services/TidyModel.ts"
import { GitFailed, type GitRunner } from "../../src/services/NotesHistory.ts"
import { historyLayer, historySession, tempRoot } from "../support/notesHistoryFixtures.ts"
import { nodeLayer } from "../support/notesStoreFixtures.ts"

/** A pass that lists the notes, then retires `plan`, and says so. */
const listingPass = (seen: Array<string>): TidyPass => (request) =>
  Effect.gen(function*() {
    const listed = yield* request.tool("notes_list", {})
    seen.push(listed.text)
    yield* request.tool("notes_update", { address: "plan", retire: true })
    return { _tag: "Done" as const, account: "Retired plan: done.", model: "test/model" }
  }) as ReturnType<TidyPass>

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
      writeFileSync(join(root, ".tidy.lock"), JSON.stringify({ pid: process.pid, host: hostname() }))
      const refused = yield* Effect.provide(Effect.flip(tidyCommand([], listingPass([]))), session.layer)
      assert.strictEqual(refused.message, "pi-context: another tidy is running on these notes; try again when it has finished.")
      assert.isTrue(existsSync(join(root, "sessions", "hist-session-0001", "plan.md")))

      // No process has pid 2^22 + 1 here (Linux caps pids at 2^22).
      writeFileSync(join(root, ".tidy.lock"), JSON.stringify({ pid: 4_194_305, host: hostname() }))
      const report = yield* Effect.provide(tidyCommand(["--dry-run"], listingPass([])), session.layer)
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
          "pi-context: notes history is off (git is not installed: no git on PATH). tidy needs the notes history to be undone; /pi-context tidy --dry-run still works."
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
})
