import { Effect, Option, Ref } from "effect"
import { isEnabled } from "../../domain/enabled.ts"
import { PiSession } from "../../services/PiSession.ts"
import type { Thresholds } from "../../services/Thresholds.ts"

/**
 * Whether pi-context may start new resets: the last `pi-context/state` entry
 * on the branch, else the setting. Cached per extension instance; `forget`
 * drops it when the branch may have changed.
 */
export const makeEnabled = (thresholds: Thresholds["Service"]) =>
  Effect.gen(function*() {
    const cache = yield* Ref.make<Option.Option<boolean>>(Option.none())

    const enabled = Effect.gen(function*() {
      const cached = yield* Ref.get(cache)
      if (Option.isSome(cached)) return cached.value
      const policy = yield* thresholds.policy
      const value = isEnabled(yield* (yield* PiSession).branch, policy.enabled.value)
      yield* Ref.set(cache, Option.some(value))
      return value
    })

    return {
      enabled,
      rememberEnabled: (on: boolean) => Ref.set(cache, Option.some(on)),
      forget: Ref.set(cache, Option.none())
    }
  })
