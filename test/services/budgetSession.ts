import { Effect, Layer, Option, Ref } from "effect"
import type { WindowUsage } from "../../src/domain/window/usage.ts"
import type { ModelInfo } from "../../src/services/PiSession.ts"
import { PiSession } from "../../src/services/PiSession.ts"

/** What the budget and thresholds tests control of Pi: paths, trust, model, usage, settings; notices are recorded. */
export interface SessionKnobs {
  readonly agentDir: string
  readonly cwd: string
  readonly trusted: boolean
  readonly model: ModelInfo | undefined
  readonly usage: WindowUsage | undefined
  readonly settings: Readonly<Record<string, unknown>>
}

export const defaultModel: ModelInfo = { provider: "anthropic", id: "claude-sonnet-4", contextWindow: 200_000 }

/** A PiSession whose knobs live in a Ref the test can turn, with every notify recorded. */
export const makeSession = (initial: Partial<SessionKnobs>) =>
  Effect.gen(function*() {
    const knobs = yield* Ref.make<SessionKnobs>({
      agentDir: "/nonexistent/agent",
      cwd: "/nonexistent/project",
      trusted: true,
      model: defaultModel,
      usage: undefined,
      settings: {},
      ...initial
    })
    const notices = yield* Ref.make<ReadonlyArray<string>>([])
    const current = yield* Ref.get(knobs)
    const layer = Layer.mock(PiSession)({
      sessionId: "session-1",
      cwd: current.cwd,
      agentDir: current.agentDir,
      isProjectTrusted: Effect.map(Ref.get(knobs), (k) => k.trusted),
      model: Effect.map(Ref.get(knobs), (k) => Option.fromNullishOr(k.model)),
      contextUsage: Effect.map(Ref.get(knobs), (k) => Option.fromNullishOr(k.usage)),
      // An empty branch: the root window, whose usage is Pi's figure as the knobs set it.
      branchTail: () => Effect.succeed([]),
      settings: Effect.map(Ref.get(knobs), (k) => k.settings),
      notify: (message) => Ref.update(notices, (all) => [...all, message]),
      interruptOnAbort: (effect) => effect
    })
    return { knobs, notices, layer }
  })
