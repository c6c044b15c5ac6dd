import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CustomType } from "../../src/kernel/protocol.ts"
import * as GuardsLive from "../../src/reset/GuardsLive.ts"
import { Guards } from "../../src/reset/Guards.ts"
import { type FakeSession, makeFakeSession } from "../support/FakePiSession.ts"

describe("Guards", () => {
  it.effect("native compaction is cancelled while on, or on any branch with a marker, and allowed otherwise", () =>
    Effect.gen(function*() {
      // One extension instance serves one session, so each session gets its own guards.
      const verdict = (fake: FakeSession) =>
        Guards.use((g) => g.compactionGuard("manual")).pipe(Effect.provide(fake.layer), Effect.provide(GuardsLive.layerTest))
      const off = { type: "custom", customType: CustomType.state, data: { enabled: false } }
      const marker = { type: "custom", customType: CustomType.resetMarker, data: { windowId: "pcx:x:1" } }
      assert.strictEqual(yield* verdict(makeFakeSession()), "Block")
      assert.strictEqual(yield* verdict(makeFakeSession({ entries: [off] })), "Allow")
      assert.strictEqual(yield* verdict(makeFakeSession({ entries: [marker, off] })), "Block")
    }))

  it.effect("Pi's automatic compaction attempts are cancelled quietly after the first notice in a window", () => {
    const fake = makeFakeSession()
    return Effect.gen(function*() {
      const guard = (reason: "manual" | "threshold") => Guards.use((g) => g.compactionGuard(reason)).pipe(Effect.provide(fake.layer))
      assert.strictEqual(yield* guard("threshold"), "Block")
      assert.strictEqual(fake.notices.length, 1)
      assert.strictEqual(yield* guard("threshold"), "Block")
      assert.strictEqual(fake.notices.length, 1)
      assert.strictEqual(yield* guard("manual"), "Block")
      assert.deepStrictEqual(fake.notices.map((n) => n.level), ["warning", "warning"])
      assert.include(fake.notices[1]!.message, "/wipe-memory")
    }).pipe(Effect.provide(GuardsLive.layerTest))
  })
})
