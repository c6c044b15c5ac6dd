import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as BootsLive from "../../src/boot/BootsLive.ts"
import { Boots } from "../../src/boot/Boots.ts"
import { NotesStore } from "../../src/notes/NotesStore.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"

const hour = 3_600_000
const takenAt = Date.UTC(2025, 4, 1, 12)

/** Session notes last written 3 h ago; the other homes empty. */
const notes = Layer.mock(NotesStore)({
  snapshot: () =>
    Effect.succeed({
      takenAt,
      homes: (["session", "project", "user", "agent", "model"] as const).map((home) => ({
        _tag: "Available" as const,
        home,
        location: home,
        map: undefined,
        recent: home === "session" ? [{ home, address: "plan.md", bytes: 10, updatedMs: takenAt - 3 * hour, title: "" }] : [],
        noteCount: home === "session" ? 1 : 0
      }))
    }),
  projectKey: () => Effect.succeed("project-0000"),
  copySessionHome: () => Effect.succeed({ copied: 0 })
})

const boots = BootsLive.layerTest.pipe(Layer.provide(notes))

layer(boots)("Boots", (it) => {
  it.effect("renders the previous window's checkpoint and the notes' freshness when given continuity", () => {
    const fake = makeFakeSession()
    return Effect.gen(function*() {
      const { text } = yield* Boots.use((b) =>
        b.render({
          windowId: "w-b",
          previousWindowId: "w-a",
          continuity: { previousOrdinal: 2, checkpointed: false, windowStarts: [{ ordinal: 1, startedAt: takenAt - 10 * hour }, { ordinal: 2, startedAt: takenAt - 4 * hour }] }
        })
      ).pipe(Effect.provide(fake.layer))
      assert.include(text, "w2 ended without a checkpoint")
      // Written while w2 ran, though w2 wrote no note: the two lines do not contradict each other.
      assert.include(text, "This session's notes were last updated while w2 ran, though not by it (another branch of this session, another Pi, or an edit by hand), 3 h ago (plan.md).")
      const { text: plain } = yield* Boots.use((b) => b.render({ windowId: "w-b", previousWindowId: "w-a" })).pipe(Effect.provide(fake.layer))
      assert.notInclude(plain, "checkpoint:")
      assert.notInclude(plain, "last updated in window")
    })
  })
})

/** The user home cannot be read; the other four are empty. */
const userHomeUnreadable = Layer.mock(NotesStore)({
  snapshot: () =>
    Effect.succeed({
      takenAt,
      homes: (["session", "project", "user", "agent", "model"] as const).map((home) =>
        home === "user"
          ? { _tag: "Unavailable" as const, home, location: home, reason: "EACCES: permission denied" }
          : { _tag: "Available" as const, home, location: home, map: undefined, recent: [], noteCount: 0 }
      )
    }),
  projectKey: () => Effect.succeed("project-0000"),
  copySessionHome: () => Effect.succeed({ copied: 0 })
})

layer(BootsLive.layerTest.pipe(Layer.provide(userHomeUnreadable)))(
  "Boots with a home that cannot be read",
  (it) => {
    it.effect("rendering tells nothing; a written boot's incomplete index is told once, however often that boot is written", () => {
      const fake = makeFakeSession()
      const incomplete = () => fake.notices.filter((notice) => notice.message.includes("notes index incomplete for user"))
      return Effect.gen(function*() {
        const boot = yield* Boots.use((b) => b.render({ windowId: "w-b", previousWindowId: "w-a" })).pipe(Effect.provide(fake.layer))
        assert.include(boot.text, "notes_list")
        assert.deepStrictEqual(boot.unavailableHomes, ["user"])
        // A boot may be built and dropped (an abort, a run that started meanwhile): nothing is told yet.
        assert.strictEqual(incomplete().length, 0)
        const tell = (windowId: string) => Boots.use((b) => b.tellIncomplete(windowId, boot)).pipe(Effect.provide(fake.layer))
        yield* tell("w-b")
        // The same boot written again (a repair) is not a new boot.
        yield* tell("w-b")
        assert.strictEqual(incomplete().length, 1)
        yield* tell("w-c")
        assert.strictEqual(incomplete().length, 2)
      })
    })
  }
)
