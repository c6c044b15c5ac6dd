import { Effect, Option, Ref } from "effect"

/**
 * The notices a background job (a notes commit, a sync round) leaves for the
 * next hook to show, since a forked fiber has no Pi event to tell the user
 * through. `tellOnce` queues a problem's text once until `forget` clears its
 * key (the problem went away and may come back); `take` hands the oldest out.
 */
export const makeBackgroundNotices = Effect.gen(function*() {
  const queue = yield* Ref.make<ReadonlyArray<string>>([])
  const told = new Set<string>()
  const tell = (text: string) => Ref.update(queue, (queued) => [...queued, text])
  const tellOnce = (key: string, text: string) =>
    Effect.suspend(() => {
      if (told.has(key)) return Effect.void
      told.add(key)
      return tell(text)
    })
  /** Forgets `key`: its next problem is told again. */
  const forget = (key: string) => Effect.sync(() => told.delete(key))
  /** Forgets every key that starts with `prefix`. */
  const forgetStartingWith = (prefix: string) => Effect.sync(() => told.forEach((key) => key.startsWith(prefix) && told.delete(key)))
  const wasTold = (key: string) => told.has(key)
  const take = Ref.modify(queue, (queued): [Option.Option<string>, ReadonlyArray<string>] =>
    queued.length === 0 ? [Option.none(), queued] : [Option.some(queued[0]!), queued.slice(1)])
  return { tell, tellOnce, forget, forgetStartingWith, wasTold, take } as const
})
