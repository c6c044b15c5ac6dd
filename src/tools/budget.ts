import { Effect } from "effect"
import { formatTokens, tokensLeft, usedPercent } from "../domain/budget.ts"
import { ToolName } from "../domain/protocol.ts"
import { ok, type ToolOutcome } from "../domain/toolOutcome.ts"
import { Budget } from "../services/Budget.ts"
import { PiSession } from "../services/PiSession.ts"
import { Thresholds } from "../services/Thresholds.ts"

const contextRemaining = Effect.fn("tools.context_remaining")(function*(_params: unknown): Effect.fn.Return<
  ToolOutcome,
  never,
  Budget | Thresholds | PiSession
> {
  const session = yield* PiSession
  const usage = yield* session.contextUsage
  const { beforeWarning, beforeHard } = yield* (yield* Budget).remaining({ usage })
  const policy = yield* (yield* Thresholds).policy
  const window = usage._tag === "Some" ? usage.value : undefined
  const left = tokensLeft(window)
  const details = {
    beforeWarning,
    beforeHard,
    tokensLeft: left,
    contextWindow: window?.contextWindow ?? null,
    automaticReset: policy.automaticReset.value
  }
  if (left === null || beforeWarning === null || beforeHard === null) {
    return ok(
      "Pi cannot estimate this window's usage yet (no model response in it so far): beforeWarning and beforeHard are unknown (null).",
      details
    )
  }
  const hard = policy.automaticReset.value ? "the hard line, where pi-context resets this window" : "the hard line"
  const advice = beforeWarning === 0
    ? ` The final warning line is passed: update your session MAP and checkpoint note (${ToolName.notesWrite} / ${ToolName.notesUpdate}), then call ${ToolName.wipeMemory}.`
    : ""
  return ok(
    `${usedPercent(window)}% of this window used, ${formatTokens(left)} tokens left. ` +
      `Before the final warning: ${formatTokens(beforeWarning)} tokens. Before ${hard}: ${formatTokens(beforeHard)} tokens.${advice}`,
    details
  )
})

export const budgetToolHandlers = {
  [ToolName.contextRemaining]: contextRemaining
} as const
