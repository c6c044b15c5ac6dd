import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { doctorReport } from "../../src/commands/doctor.ts"
import * as ThresholdsLive from "../../src/layers/ThresholdsLive.ts"
import * as WindowLive from "../../src/layers/WindowLive.ts"
import { historyLayer, historySession, SessionId, tempRoot } from "../support/notesHistoryFixtures.ts"

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
      assert.include(report, "ok   notes history: starts at the end of the first window that writes a note")
      assert.include(report, "FAIL notes lint: 1 MAP entries that point nowhere\n       MAP.md:3 points at \"gone.md\", which is no note")
      assert.include(report, "FAIL notes lint: 1 notes larger than a boot can show\n       MAP.md has ")
      assert.include(report, "FAIL notes lint: 1 duplicate notes\n       @agent/copy-b.md, @user/copy-a.md have the same content")
      assert.include(report, "FAIL notes lint: 1 notes untouched for a long time (90+ days)\n       @user/ancient.md was last updated 200 days ago")
    }).pipe(Effect.provide(Layer.mergeAll(historyLayer(), ThresholdsLive.layerTest, WindowLive.layer))))
})
