import { Deferred, Effect, type Exit, FiberSet, Option } from "effect"

/**
 * Runs `work` in `fibers` and waits for it at most `waitMs`: its outcome when
 * it comes in time, `None` when it goes on in the background; then `later`
 * is handed its outcome (for the next hook's notices). Whichever side comes
 * first decides, each in one synchronous step, so an outcome is told once.
 */
export const answerWithin = <A, E, R>(
  fibers: FiberSet.FiberSet<void, never>,
  work: Effect.Effect<A, E, R>,
  waitMs: number,
  later: (outcome: Exit.Exit<A, E>) => Effect.Effect<void>
): Effect.Effect<Option.Option<Exit.Exit<A, E>>, never, R> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<void>()
    let outcome: Exit.Exit<A, E> | undefined
    let detached = false
    yield* FiberSet.run(fibers)(Effect.gen(function*() {
      const exit = yield* Effect.exit(work)
      const tellLater = yield* Effect.sync(() => {
        outcome = exit
        return detached
      })
      yield* tellLater ? later(exit) : Deferred.succeed(done, undefined)
    }))
    yield* Effect.timeoutOption(Deferred.await(done), waitMs)
    return yield* Effect.sync(() => {
      if (outcome !== undefined) return Option.some(outcome)
      detached = true
      return Option.none()
    })
  })
