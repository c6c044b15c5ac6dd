import { Effect, Layer, Option, Ref } from "effect"
import { isEnabled } from "../domain/enabled.ts"
import { Enabled } from "../services/Enabled.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"
import * as ThresholdsLive from "./ThresholdsLive.ts"

export const layerWithoutDependencies = Layer.effect(
  Enabled,
  Effect.gen(function*() {
    const thresholds = yield* Thresholds
    const cache = yield* Ref.make<Option.Option<boolean>>(Option.none())

    const current = Effect.gen(function*() {
      const cached = yield* Ref.get(cache)
      if (Option.isSome(cached)) return cached.value
      const policy = yield* thresholds.policy
      const value = isEnabled(yield* (yield* PiSession).branch, policy.enabled.value)
      yield* Ref.set(cache, Option.some(value))
      return value
    })

    return Enabled.of({
      current,
      remember: (on) => Ref.set(cache, Option.some(on)),
      forget: Ref.set(cache, Option.none())
    })
  })
)

/** Whether pi-context is on, over the settings it falls back to. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(ThresholdsLive.layer))

/** For tests: over the default policy, the policy kept in the context (shared with the other test layers that read it). */
export const layerTest = layerWithoutDependencies.pipe(Layer.provideMerge(ThresholdsLive.layerTest))
