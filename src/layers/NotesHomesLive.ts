import { Effect, Layer, Option, SynchronizedRef } from "effect"
import type { NotesIdentity } from "../domain/notes/identity.ts"
import { NotesHomes } from "../services/NotesHomes.ts"
import { NotesStore } from "../services/NotesStore.ts"
import { PiSession } from "../services/PiSession.ts"
import { resolveNotesIdentity } from "./notes/identity.ts"
import * as NotesStoreLive from "./NotesStoreLive.ts"

/** What an identity was worked out for: another session (in a test's shared layer) or another model works it out again. */
interface Resolved {
  readonly sessionId: string
  readonly cwd: string
  readonly modelId: string | undefined
  readonly identity: NotesIdentity
}

export const layerWithoutDependencies = Layer.effect(
  NotesHomes,
  Effect.gen(function*() {
    const store = yield* NotesStore
    const resolved = yield* SynchronizedRef.make(Option.none<Resolved>())

    // One at a time: two hooks asking at once must not both work it out.
    const identity = Effect.gen(function*() {
      const session = yield* PiSession
      const modelId = Option.getOrUndefined(Option.map(yield* session.model, (model) => model.id))
      return yield* SynchronizedRef.modifyEffect(resolved, (known) => {
        if (
          Option.isSome(known) && known.value.sessionId === session.sessionId && known.value.cwd === session.cwd && known.value.modelId === modelId
        ) return Effect.succeed([known.value.identity, known] as const)
        return Effect.map(
          Effect.provideService(resolveNotesIdentity(), NotesStore, store),
          (fresh) => [fresh, Option.some({ sessionId: session.sessionId, cwd: session.cwd, modelId, identity: fresh })] as const
        )
      })
    })

    const bound = <A extends ReadonlyArray<unknown>, X, E, R>(operation: (identity: NotesIdentity, ...args: A) => Effect.Effect<X, E, R>) =>
    (...args: A): Effect.Effect<X, E, R | PiSession> => Effect.flatMap(identity, (current) => operation(current, ...args))

    return NotesHomes.of({
      identity,
      read: bound(store.read),
      readPage: bound(store.readPage),
      write: bound(store.write),
      update: bound(store.update),
      retire: bound(store.retire),
      listRetired: bound(store.listRetired),
      list: bound(store.list),
      search: bound(store.search),
      snapshot: bound(store.snapshot),
      readAll: bound(store.readAll)
    })
  })
)

/** This session's homes on the live notes store. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(NotesStoreLive.layer))
