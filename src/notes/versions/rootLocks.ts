import { Effect, Option, Semaphore } from "effect"

/**
 * One git operation at a time per notes root: commits never interleave, and
 * a restore waits for a window's commit. A boundary's commit runs in the
 * background and may wait as long as it needs; a user's command waits a
 * bounded time (the first commit of a large root takes seconds) and then
 * says the history is still being written, leaving that commit to finish.
 */
export const makeRootLocks = () => {
  const locks = new Map<string, Semaphore.Semaphore>()
  const lockOf = (root: string): Semaphore.Semaphore => {
    let lock = locks.get(root)
    if (lock === undefined) {
      lock = Semaphore.makeUnsafe(1)
      locks.set(root, lock)
    }
    return lock
  }

  const serialized = <A, E, R>(root: string, effect: Effect.Effect<A, E, R>) => Effect.suspend(() => lockOf(root).withPermit(effect))

  /** `effect` at its turn at the root's lock when that comes within `waitMs`; `busy` when it does not. */
  const serializedWithin = <A, E, R, B, E2, R2>(
    root: string,
    waitMs: number,
    effect: Effect.Effect<A, E, R>,
    busy: Effect.Effect<B, E2, R2>
  ): Effect.Effect<A | B, E | E2, R | R2> =>
    Effect.suspend(() => {
      const lock = lockOf(root)
      return Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(restore(Effect.timeoutOption(lock.take(1), waitMs)), (taken) =>
          Option.isNone(taken) ? restore(busy) : restore<A | B, E | E2, R | R2>(effect).pipe(Effect.ensuring(lock.release(1))))
      )
    })

  return { serialized, serializedWithin }
}
