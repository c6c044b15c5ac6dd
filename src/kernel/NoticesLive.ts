import { Effect, Layer, Ref } from "effect"
import { Notices } from "./Notices.ts"

/** One queue per extension instance: every room that leaves a notice, and the runtime that shows them, share it. */
export const layer = Layer.effect(
  Notices,
  Effect.gen(function*() {
    const queue = yield* Ref.make<ReadonlyArray<string>>([])
    const told = new Set<string>()
    const tell = (text: string) => Ref.update(queue, (queued) => [...queued, text])
    return Notices.of({
      tell,
      tellOnce: (key, text) =>
        Effect.suspend(() => {
          if (told.has(key)) return Effect.void
          told.add(key)
          return tell(text)
        }),
      forget: (key) => Effect.sync(() => void told.delete(key)),
      forgetStartingWith: (prefix) => Effect.sync(() => told.forEach((key) => key.startsWith(prefix) && told.delete(key))),
      wasTold: (key) => Effect.sync(() => told.has(key)),
      takeAll: Ref.getAndSet(queue, [])
    })
  })
)
