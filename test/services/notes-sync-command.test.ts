import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { notes } from "../../src/commands/notesCommand.ts"
import { notesSyncCommand } from "../../src/notes/sync/syncCommand.ts"
import type { Reply } from "../../src/kernel/Subcommand.ts"
import type { RemoteSyncState } from "../../src/notes/sync/syncTypes.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import { NotesSync } from "../../src/notes/sync/NotesSync.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"
import { historyLayer, historySession, tempRoot } from "../support/notesVersionsFixtures.ts"

const now = 1_800_000_000_000

const before: RemoteSyncState = {
  remote: "git@github.com:me/notes.git",
  branch: "pi-context-notes",
  homes: ["user"],
  lastPull: { _tag: "Failed", atMs: now - 120_000, kind: "unreachable", detail: "ssh: Could not resolve hostname github.com" },
  lastPush: undefined,
  ahead: undefined,
  behind: undefined,
  conflicts: [],
  diverged: undefined,
  pushPending: false
}

const after: RemoteSyncState = {
  ...before,
  lastPull: { _tag: "Ok", atMs: now, detail: "2 notes pulled" },
  lastPush: { _tag: "Ok", atMs: now, detail: "1 commit pushed" },
  ahead: 0,
  behind: 0
}

const setup = { globalSettings: "~/.pi/agent/settings.json", ignored: [] }

/** A NotesSync that holds `before` until a sync now, which leaves `after`. */
const fakeSync = () => {
  const calls = { syncNow: 0 }
  const layer = Layer.mock(NotesSync)({
    states: Effect.sync(() => (calls.syncNow === 0 ? [before] : [after])),
    setup: Effect.succeed(setup),
    syncNow: Effect.sync(() => {
      calls.syncNow++
      return [after]
    })
  })
  return { calls, layer }
}

describe("/pi-context notes sync", () => {
  it.effect("shows each remote's state as a report, a warning while one failed, and syncs nothing", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(now)
      const { calls, layer } = fakeSync()
      const reply = yield* notesSyncCommand([]).pipe(Effect.provide(Layer.merge(layer, makeFakeSession().layer)))
      assert.deepStrictEqual(reply, {
        _tag: "Report",
        report: {
          kind: "text",
          title: "pi-context notes sync · 1 remote",
          text: [
            "git@github.com:me/notes.git · branch pi-context-notes · user",
            "  last pull: failed 2 min ago: cannot reach the remote (ssh: Could not resolve hostname github.com)",
            "  last push: not yet",
            "  ahead/behind: not known until a fetch succeeds",
            "/pi-context notes sync now pulls and pushes every remote now."
          ].join("\n"),
          level: "warning"
        }
      })
      assert.strictEqual(calls.syncNow, 0)
    }))

  it.effect("now runs one sync and shows what it did", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(now)
      const { calls, layer } = fakeSync()
      const reply = yield* notesSyncCommand(["now"]).pipe(Effect.provide(Layer.merge(layer, makeFakeSession().layer)))
      assert.strictEqual(calls.syncNow, 1)
      assert.strictEqual(reply._tag, "Report")
      if (reply._tag !== "Report" || reply.report.kind !== "text") return assert.fail("a text report")
      assert.strictEqual(reply.report.title, "pi-context notes sync now: 1 remote synced")
      assert.include(reply.report.text, "  last pull: ok just now (2 notes pulled)")
      assert.include(reply.report.text, "  last push: ok just now (1 commit pushed)")
      assert.isUndefined(reply.report.level)
    }))

  it.effect("explains how to set a remote when none is configured, says so when sync is not running, and refuses other words", () =>
    Effect.gen(function*() {
      const session = makeFakeSession()
      const none = yield* notesSyncCommand([]).pipe(
        Effect.provide(Layer.merge(Layer.mock(NotesSync)({ states: Effect.succeed([]), setup: Effect.succeed(setup) }), session.layer))
      )
      assert.isTrue(none._tag === "Report" && none.report.kind === "text" && none.report.text.startsWith("No remote is configured"))
      assert.isTrue(none._tag === "Report" && none.report.kind === "text" && none.report.level === undefined)
      // Entries set but each ignored: the report says why, as a warning (doctor fails the same check).
      const ignored = yield* notesSyncCommand([]).pipe(
        Effect.provide(
          Layer.merge(
            Layer.mock(NotesSync)({ states: Effect.succeed([]), setup: Effect.succeed({ ...setup, ignored: ["settings.json: pi-context.sync = \"x\" is not a list of { homes, remote, branch }; it is ignored."] }) }),
            session.layer
          )
        )
      )
      assert.isTrue(ignored._tag === "Report" && ignored.report.kind === "text" && ignored.report.text.includes("each pi-context.sync entry was ignored"))
      assert.isTrue(ignored._tag === "Report" && ignored.report.kind === "text" && ignored.report.level === "warning")
      assert.deepStrictEqual(yield* notesSyncCommand([]).pipe(Effect.provide(session.layer)), {
        _tag: "Notice",
        text: "pi-context: notes sync is not running in this session.",
        level: "warning"
      })
      const usage = yield* notesSyncCommand(["later"]).pipe(Effect.provide(session.layer))
      assert.isTrue(usage._tag === "Notice" && usage.text.includes("/pi-context notes sync now"))
    }))
})

describe("/pi-context notes", () => {
  it.effect("lists the conflict copies notes sync keeps, and none without sync", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-notes-conflicts-")
      const { session } = historySession(root)
      const conflicted: RemoteSyncState = {
        ...after,
        conflicts: [{ home: "user", note: "plan.md", copy: "plan.conflict-20261201T211503Z.md", atMs: now }]
      }
      const overviewOf = (reply: Reply<unknown>) => (reply._tag === "Report" && reply.report.kind === "notes" ? reply.report.overview : undefined)
      const withSync = yield* notes.run([]).pipe(Effect.provide(Layer.merge(session.layer, Layer.mock(NotesSync)({ states: Effect.succeed([conflicted]) }))))
      assert.deepStrictEqual(overviewOf(withSync)?.conflicts, ["@user/plan.md: the other side's text is kept in @user/plan.conflict-20261201T211503Z.md"])
      const without = yield* notes.run([]).pipe(Effect.provide(session.layer))
      assert.deepStrictEqual(overviewOf(without)?.conflicts, [])
    }).pipe(Effect.provide(Layer.mergeAll(historyLayer(), WindowLive.layerTest))))
})
