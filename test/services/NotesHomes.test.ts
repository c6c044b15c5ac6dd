import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer } from "effect"
import type { NotesIdentity } from "../../src/notes/identity.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import { NotesHomes } from "../../src/notes/NotesHomes.ts"
import { NotesStore } from "../../src/notes/NotesStore.ts"
import { notesToolHandlers } from "../../src/notes/notesHandlers.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"
import { liveNotesLayer } from "../support/notesStoreFixtures.ts"

/** This session's homes over a store that counts how often an identity is worked out (each asks for the project key once) and records the identity of each write. */
const countingHomes = () => {
  const counts = { projectKey: 0 }
  const writtenAs: Array<NotesIdentity> = []
  const store = Layer.mock(NotesStore)({
    projectKey: () => Effect.sync(() => (counts.projectKey += 1, "project-0000")),
    write: (identity, address) => Effect.sync(() => (writtenAs.push(identity), { address, created: true, bytes: 1 }))
  })
  return { counts, writtenAs, layer: NotesHomesLive.layerWithoutDependencies.pipe(Layer.provide(store)) }
}

const withNotesRoot = <A, E, R>(root: string | undefined, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const previous = process.env.PI_CONTEXT_NOTES_ROOT
      if (root === undefined) delete process.env.PI_CONTEXT_NOTES_ROOT
      else process.env.PI_CONTEXT_NOTES_ROOT = root
      return previous
    }),
    () => effect,
    (previous) => Effect.sync(() => {
      if (previous === undefined) delete process.env.PI_CONTEXT_NOTES_ROOT
      else process.env.PI_CONTEXT_NOTES_ROOT = previous
    })
  )

describe("this session's notes homes", () => {
  it.effect("work the identity out once per session, however many calls ask for it", () => {
    const { counts, writtenAs, layer } = countingHomes()
    const fake = makeFakeSession({ model: { provider: "test", id: "model-a", contextWindow: 100_000 } })
    return Effect.gen(function*() {
      const homes = yield* NotesHomes
      const first = yield* homes.identity
      yield* homes.write("plan", "a")
      yield* homes.write("@model/x", "b")
      const again = yield* homes.identity
      assert.strictEqual(counts.projectKey, 1)
      assert.strictEqual(again, first)
      assert.deepStrictEqual(writtenAs, [first, first])
    }).pipe(Effect.provide(fake.layer), Effect.provide(layer))
  })

  it.effect("work it out again when the session reports another model, and only then, without looking for the project again", () => {
    const { counts, layer } = countingHomes()
    const fake = makeFakeSession({ model: { provider: "test", id: "model-a", contextWindow: 100_000 } })
    return Effect.gen(function*() {
      const homes = yield* NotesHomes
      assert.strictEqual((yield* homes.identity).modelSlug, "model-a")
      fake.model = { provider: "test", id: "Model B", contextWindow: 100_000 }
      assert.strictEqual((yield* homes.identity).modelSlug, "model-b")
      assert.strictEqual((yield* homes.identity).modelSlug, "model-b")
      assert.strictEqual(counts.projectKey, 1)
    }).pipe(Effect.provide(fake.layer), Effect.provide(layer))
  })

  it.effect("look for the project once per cwd: a session in another folder gets its own", () => {
    const counts = { projectKey: 0 }
    const store = Layer.mock(NotesStore)({
      projectKey: (cwd) => Effect.sync(() => (counts.projectKey += 1, `key-of-${cwd}`))
    })
    const session = (cwd: string) => makeFakeSession({ sessionId: "shared-layer", cwd }).layer
    return Effect.gen(function*() {
      const homes = yield* NotesHomes
      const keyIn = (cwd: string) => Effect.map(Effect.provide(homes.identity, session(cwd)), (identity) => identity.projectKey)
      assert.strictEqual(yield* keyIn("/work/app"), "key-of-/work/app")
      assert.strictEqual(yield* keyIn("/work/lib"), "key-of-/work/lib")
      assert.strictEqual(yield* keyIn("/work/app"), "key-of-/work/app")
      assert.strictEqual(counts.projectKey, 2)
    }).pipe(Effect.provide(NotesHomesLive.layerWithoutDependencies.pipe(Layer.provide(store))))
  })

  it.effect("notes_write @model/x after a model change lands in the new model's home", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "pi-notes-homes-" })
      const fake = makeFakeSession({
        cwd: root,
        settings: { "pi-context": { notesRoot: root } },
        model: { provider: "test", id: "model-a", contextWindow: 100_000 }
      })
      const write = (address: string) => Effect.provide(notesToolHandlers.notes_write({ address, content: "pitfall\n" }), fake.layer)
      assert.strictEqual((yield* write("@model/before"))._tag, "Ok")
      fake.model = { provider: "test", id: "model-b", contextWindow: 100_000 }
      assert.strictEqual((yield* write("@model/after"))._tag, "Ok")
      assert.isTrue(yield* fs.exists(`${root}/models/model-a/before.md`))
      assert.isTrue(yield* fs.exists(`${root}/models/model-b/after.md`))
      assert.isFalse(yield* fs.exists(`${root}/models/model-a/after.md`))
    }).pipe(Effect.provide(liveNotesLayer)))

  it.effect("each session reads PI_CONTEXT_NOTES_ROOT when it starts, so sessions in one process can use different roots", () => {
    const rootOfNewSession = (root: string) => {
      const { layer } = countingHomes()
      return withNotesRoot(root, Effect.provide(NotesHomes.use((homes) => homes.identity), Layer.merge(layer, makeFakeSession().layer)))
    }
    return Effect.gen(function*() {
      assert.strictEqual((yield* rootOfNewSession("/tmp/notes-a")).root, "/tmp/notes-a")
      assert.strictEqual((yield* rootOfNewSession("/tmp/notes-b")).root, "/tmp/notes-b")
    })
  })
})
