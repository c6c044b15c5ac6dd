import { Effect, Layer, Option, Ref } from "effect"
import { Enabled } from "./Enabled.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { Window } from "./Window.ts"
import * as ThresholdsLive from "../settings/ThresholdsLive.ts"
import * as WindowLive from "./WindowLive.ts"

export const layerWithoutDependencies = Layer.effect(
  Enabled,
  Effect.gen(function*() {
    const thresholds = yield* Thresholds
    const window = yield* Window
    const cache = yield* Ref.make<Option.Option<boolean>>(Option.none())

    const current = Effect.gen(function*() {
      const cached = yield* Ref.get(cache)
      if (Option.isSome(cached)) return cached.value
      const policy = yield* thresholds.policy
      const value = (yield* window.enabledOnBranch) ?? policy.enabled.value
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
export const layer = layerWithoutDependencies.pipe(Layer.provide(Layer.mergeAll(ThresholdsLive.layer, WindowLive.layer)))

/** For tests: over the default policy, the policy kept in the context (shared with the other test layers that read it). */
export const layerTest = layerWithoutDependencies.pipe(Layer.provideMerge(ThresholdsLive.layerTest), Layer.provide(WindowLive.layer))
