import { Effect } from "effect"
import { formatTokens } from "../kernel/tokenCount.ts"
import { ToolName } from "../kernel/protocol.ts"
import { ok, type ToolOutcome } from "../kernel/toolOutcome.ts"
import { estimateNote, percentShown, tokensLeft } from "../window/usage.ts"
import { remainingBefore } from "./reminders.ts"
import type { PiSession } from "../kernel/PiSession.ts"
import { Thresholds } from "../settings/Thresholds.ts"
import { Window } from "../window/Window.ts"

const contextRemaining = Effect.fn("tools.context_remaining")(function*(_params: unknown): Effect.fn.Return<ToolOutcome, never, Thresholds | Window | PiSession> {
  // The Window room's usage, as the status line and /pi-context status show it.
  const window = yield* (yield* Window).usage
  const policy = yield* (yield* Thresholds).policy
  const { beforeWarning, beforeHard } = remainingBefore(window, policy.lines)
  const left = tokensLeft(window)
  const details = {
    beforeWarning,
    beforeHard,
    tokensLeft: left,
    estimated: window?.estimated === true,
    contextWindow: window?.contextWindow ?? null,
    automaticReset: policy.automaticReset.value
  }
  if (left === null || beforeWarning === null || beforeHard === null) {
    return ok(
      "This window's usage is not known (neither Pi nor its last request gives a figure yet): beforeWarning and beforeHard are unknown (null).",
      details
    )
  }
  const estimate = window?.estimated === true ? ` (${estimateNote})` : ""
  const used = `${percentShown(window)} of this window used, ${formatTokens(left)} tokens left${estimate}.`
  const save = `update your session MAP and checkpoint note (${ToolName.notesWrite} / ${ToolName.notesUpdate}), then call ${ToolName.wipeMemory}`
  if (policy.automaticReset.value && left <= policy.lines.hard.value) {
    return ok(
      `${used} This window is past its hard line, which is at ${formatTokens(policy.lines.hard.value)} tokens left: pi-context resets it ` +
        `automatically when this turn ends, or after one close-out turn. Now ${save}.`,
      details
    )
  }
  const hard = policy.automaticReset.value ? "the hard line, where pi-context resets this window" : "the hard line"
  const advice = beforeWarning === 0 ? ` The final warning line is passed: ${save}.` : ""
  return ok(`${used} Before the final warning: ${formatTokens(beforeWarning)} tokens. Before ${hard}: ${formatTokens(beforeHard)} tokens.${advice}`, details)
})

export const budgetToolHandlers = {
  [ToolName.contextRemaining]: contextRemaining
} as const
