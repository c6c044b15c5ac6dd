import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { inheritForkNotes } from "../../src/notes/forkNotes.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import { NotesIoError, NotesStore } from "../../src/notes/NotesStore.ts"
import { Trace } from "../../src/trace/Trace.ts"
import { makeFakeSession } from "../support/FakePiSession.ts"

const parentId = "0199aaaa-0000-7000-8000-000000000001"

/** A notes store whose copy of a session home is the test's, recording every copy asked for. */
const setup = (copy: (parentId: string, sessionId: string) => Effect.Effect<{ readonly copied: number }, NotesIoError>) => {
  const copies: Array<string> = []
  const events: Array<string> = []
  const layer = Layer.mergeAll(
    NotesHomesLive.layerWithoutDependencies.pipe(Layer.provideMerge(Layer.mock(NotesStore)({
      projectKey: () => Effect.succeed("project-0000"),
      copySessionHome: (_root, from, to) => Effect.sync(() => void copies.push(`${from} -> ${to}`)).pipe(Effect.andThen(copy(from, to)))
    }))),
    Layer.mock(Trace)({ info: (event) => Effect.sync(() => void events.push(event)) })
  )
  return { copies, events, layer }
}

describe("a fork's session notes", () => {
  it.effect("are copied from the parent session's home when the session is a fork", () => {
    const { copies, events, layer } = setup(() => Effect.succeed({ copied: 3 }))
    const fake = makeFakeSession({ parentSessionId: parentId })
    return Effect.gen(function*() {
      yield* inheritForkNotes()
      assert.deepStrictEqual(copies, [`${parentId} -> ${fake.sessionId}`])
      assert.deepStrictEqual(events, ["fork.notes-copied"])
      assert.deepStrictEqual(fake.notices, [])
    }).pipe(Effect.provide(fake.layer), Effect.provide(layer))
  })

  it.effect("are not copied for a session that is not a fork", () => {
    const { copies, layer } = setup(() => Effect.succeed({ copied: 0 }))
    const fake = makeFakeSession()
    return Effect.gen(function*() {
      yield* inheritForkNotes()
      assert.deepStrictEqual(copies, [])
    }).pipe(Effect.provide(fake.layer), Effect.provide(layer))
  })

  it.effect("tell the user when the copy fails, and go on", () => {
    const { events, layer } = setup(() => Effect.fail(new NotesIoError({ address: "", home: "session", errno: "EACCES", permanent: true, reason: "EACCES", action: "fix the permissions" })))
    const fake = makeFakeSession({ parentSessionId: parentId })
    return Effect.gen(function*() {
      yield* inheritForkNotes()
      assert.deepStrictEqual(events, ["fork.notes-failed"])
      assert.deepStrictEqual(fake.notices, [{ message: "pi-context: could not copy the parent session's notes (EACCES).", level: "warning" }])
    }).pipe(Effect.provide(fake.layer), Effect.provide(layer))
  })
})
