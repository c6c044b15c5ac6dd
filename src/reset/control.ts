import { Effect, Ref } from "effect"
import { initialResetControl, reduceResetControl, type ResetEvent, type Transition } from "./resetControl.ts"
import { Budget } from "../budget/Budget.ts"
import { PiSession } from "../kernel/PiSession.ts"
import { Trace } from "../trace/Trace.ts"
import { Window } from "../window/Window.ts"

/**
 * The reset reducer's state for the Lifecycle room and its `/wipe-memory`:
 * one step at a time, each effect traced with the reason the reducer gave;
 * the status line, which says when a `/wipe-memory` waits for the run; and
 * the transient state a new window drops.
 */
export const makeResetControl = Effect.gen(function*() {
  const trace = yield* Trace
  const budget = yield* Budget
  const windows = yield* Window
  const control = yield* Ref.make(initialResetControl)

  /** One reducer step; every effect is traced with the reason the reducer gave. */
  const step = (event: ResetEvent) =>
    Effect.gen(function*() {
      const transition: Transition = yield* Ref.modify(control, (state) => {
        const next = reduceResetControl(state, event)
        return [next, next.state]
      })
      const { effect } = transition
      if (effect._tag !== "none" || effect.reason !== undefined) {
        yield* trace.info("reset.transition", {
          on: event._tag,
          effect: effect._tag,
          ...(effect._tag === "commit-boundary" ? { source: effect.source, continue: effect.continue } : {}),
          reason: effect.reason ?? "",
          overflow: transition.state.overflow
        })
      }
      return transition
    })

  const updateStatus = Effect.gen(function*() {
    const session = yield* PiSession
    const { text, tone } = yield* budget.statusLine(yield* windows.enabled)
    const waiting = (yield* Ref.get(control)).commandWipe?.windowId === (yield* windows.current).id
    yield* session.setStatus(waiting ? `${text} · will reset when idle` : text, tone)
  })

  /** What a new window (or a session's start, or `/pi-context on|off`) leaves behind: the reducer's run state and the Window room's caches. */
  const resetTransient = Effect.gen(function*() {
    yield* step({ _tag: "Cleared" })
    yield* windows.forget
  })

  return { state: Ref.get(control), step, updateStatus, resetTransient }
})

export type ResetControl = Effect.Success<typeof makeResetControl>
