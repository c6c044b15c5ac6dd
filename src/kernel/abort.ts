import { Effect, Fiber } from "effect"

/**
 * Interrupts the running effect when `signal` aborts (a turn's Escape). The
 * effect runs in a child fiber that the abort listener interrupts; joining it
 * then carries the interruption to the caller.
 */
export const interruptWhenAborted = (signal: AbortSignal) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    signal.aborted
      ? Effect.interrupt
      : Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(effect)
        const onAbort = () => void Effect.runFork(Fiber.interrupt(fiber))
        signal.addEventListener("abort", onAbort, { once: true })
        return yield* Fiber.join(fiber).pipe(Effect.ensuring(Effect.sync(() => signal.removeEventListener("abort", onAbort))))
      })
