import { Effect } from "effect"
import { ToolName } from "../kernel/protocol.ts"
import { failed, ok, type ToolOutcome } from "../kernel/toolOutcome.ts"
import { Lifecycle } from "./Lifecycle.ts"
import type { PiSession } from "../kernel/PiSession.ts"

const wipeMemory = Effect.fn("tools.wipe_memory")(function*(_params: unknown): Effect.fn.Return<
  ToolOutcome,
  never,
  Lifecycle | PiSession
> {
  const reply = yield* (yield* Lifecycle).requestWipe
  // Terminal: nothing else in this window needs the model once the wipe is scheduled.
  if (reply.scheduled) return { _tag: "Ok", text: reply.text, terminate: true }
  // A refusal by the checkpoint check is an ordinary result: the model writes its notes and calls again.
  return reply.refused ? ok(reply.text) : failed("disabled", reply.text)
})

export const lifecycleToolHandlers = {
  [ToolName.wipeMemory]: wipeMemory
} as const
