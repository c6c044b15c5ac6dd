import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { NotesStore } from "../../src/services/NotesStore.ts"
import { notesIdentity } from "../../src/services/NotesIdentity.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"

const store = Layer.mock(NotesStore)({ projectKey: () => Effect.succeed("project-0000") })

describe("notes identity", () => {
  it.effect("reads PI_CONTEXT_NOTES_ROOT at each call, so sessions in one process can use different roots", () =>
    Effect.gen(function*() {
      const previous = process.env.PI_CONTEXT_NOTES_ROOT
      process.env.PI_CONTEXT_NOTES_ROOT = "/tmp/notes-a"
      const first = yield* notesIdentity()
      process.env.PI_CONTEXT_NOTES_ROOT = "/tmp/notes-b"
      const second = yield* notesIdentity()
      process.env.PI_CONTEXT_NOTES_ROOT = previous
      assert.strictEqual(first.root, "/tmp/notes-a")
      assert.strictEqual(second.root, "/tmp/notes-b")
    }).pipe(Effect.provide(makeFakeSession().layer), Effect.provide(store)))
})
