import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { doctorReport } from "../../src/commands/doctor.ts"
import type { RemoteSyncState } from "../../src/notes/sync/syncTypes.ts"
import { NotesSync } from "../../src/notes/sync/NotesSync.ts"
import * as ThresholdsLive from "../../src/settings/ThresholdsLive.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import { historyLayer, historySession, SessionId, tempRoot } from "../support/notesVersionsFixtures.ts"

const now = 1_800_000_000_000
const day = 86_400_000

const put = (file: string, body: string, ageDays: number) => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, body)
  const at = new Date(now - ageDays * day)
  utimesSync(file, at, at)
}

describe("doctor notes lint", () => {
  it.effect("reports each class of problem in the homes, and the history's state", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(now)
      const root = yield* tempRoot("pi-doctor-lint-")
      const sessionHome = join(root, "sessions", SessionId)
      put(join(sessionHome, "MAP.md"), `# Map\n- [plan](plan.md)\n- [gone](gone.md)\n${"filler ".repeat(300)}\n`, 1)
      put(join(sessionHome, "plan.md"), "# Plan\nship\n", 1)
      put(join(root, "user", "copy-a.md"), "same words\n", 1)
      put(join(root, "agents", "pi", "copy-b.md"), "same words\n", 1)
      put(join(root, "user", "ancient.md"), "# Ancient\n", 200)
      const { session } = historySession(root)
      const report = yield* Effect.provide(doctorReport, session.layer)
      assert.include(report, "ok   note versions: starts at the end of the first window that writes a note")
      assert.include(report, "FAIL notes lint: 1 MAP entries that point nowhere\n       MAP.md:3 points at \"gone.md\", which is no note")
      assert.include(report, "FAIL notes lint: 1 notes larger than a boot can show\n       MAP.md has ")
      assert.include(report, "FAIL notes lint: 1 duplicate notes\n       @agent/copy-b.md, @user/copy-a.md have the same content")
      assert.include(report, "FAIL notes lint: 1 notes untouched for a long time (90+ days)\n       @user/ancient.md was last updated 200 days ago")
    }).pipe(Effect.provide(Layer.mergeAll(historyLayer(), WindowLive.layerTest))))
})

describe("doctor notes sync", () => {
  it.effect("gives each sync remote one line: ok, or what went wrong with its fix; no remote, how the notes stay", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(now)
      const root = yield* tempRoot("pi-doctor-sync-")
      const { session } = historySession(root)
      const ok: RemoteSyncState = {
        remote: "/srv/notes.git",
        branch: "pi-context-notes",
        homes: ["user", "agent"],
        lastPull: { _tag: "Ok", atMs: now - 300_000, detail: "up to date" },
        lastPush: { _tag: "Ok", atMs: now - 60_000, detail: "1 commit pushed" },
        ahead: 0,
        behind: 0,
        conflicts: [],
        diverged: undefined,
        pushPending: false
      }
      const failing: RemoteSyncState = {
        ...ok,
        remote: "https://***@example.com/team.git",
        homes: ["project"],
        lastPull: { _tag: "Failed", atMs: now - 60_000, kind: "unreachable", detail: "Could not resolve host: example.com" },
        conflicts: [{ home: "project", note: "plan.md", copy: "plan.conflict-20261201T211503Z.md", atMs: now - 600_000 }]
      }
      const withSync = Layer.mock(NotesSync)({ states: Effect.succeed([ok, failing]) })
      const report = yield* Effect.provide(doctorReport, Layer.merge(session.layer, withSync))
      assert.include(report, "\nok   notes sync /srv/notes.git (user, agent): synced 1 min ago\n")
      assert.include(
        report,
        "\nFAIL notes sync https://***@example.com/team.git (project): pull failed: cannot reach the remote; check the URL and the network: `git ls-remote https://***@example.com/team.git`; " +
          "1 conflict pending (@project/plan.md: the other side's text is kept in @project/plan.conflict-20261201T211503Z.md): merge the copy into the note, then delete or retire the copy\n"
      )
      const without = yield* Effect.provide(doctorReport, session.layer)
      assert.include(without, "\nok   notes sync: no remote configured; the notes stay on this machine\n")
    }).pipe(Effect.provide(Layer.mergeAll(historyLayer(), WindowLive.layerTest))))

  it.effect("says so when remotes are configured but notes sync is not running", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot("pi-doctor-sync-off-")
      const { session } = historySession(root)
      const report = yield* Effect.provide(doctorReport, session.layer)
      assert.include(report, "\nFAIL notes sync: 1 remote configured, but notes sync is not running in this session\n")
    }).pipe(Effect.provide(Layer.mergeAll(historyLayer(), WindowLive.layerWithoutDependencies.pipe(Layer.provideMerge(ThresholdsLive.layerInjected({ sync: [{ homes: ["user"], remote: "/srv/notes.git" }] })))))))
})
