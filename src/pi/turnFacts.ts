import type { AgentMessage } from "@earendil-works/pi-agent-core"
import { type AssistantMessage, isContextOverflow, isRecoverableLength } from "@earendil-works/pi-ai"
import type { ExtensionContext } from "@earendil-works/pi-coding-agent"
import { replyTokens } from "../window/projection.ts"
import type { TurnOutcome } from "../reset/resetControl.ts"
import type { ReplyFacts } from "../reset/Lifecycle.ts"

/**
 * Whether a reply overflowed, by Pi's own tests. They read fields a reply
 * from another extension's provider may lack (its usage); such a reply
 * counts as no overflow rather than failing the hook.
 */
const overflowed = (assistant: AssistantMessage, ctx: ExtensionContext): boolean => {
  try {
    return isContextOverflow(assistant, ctx.model?.contextWindow) ||
      (ctx.model !== undefined && isRecoverableLength(assistant, ctx.model.maxTokens))
  } catch {
    return false
  }
}

/** Pi's turn facts, reduced to what the lifecycle decides on: the outcome (an abort wins) and whether the reply overflowed. */
export const turnFacts = (outcome: TurnOutcome, message: AgentMessage | undefined, ctx: ExtensionContext) => {
  const assistant = message !== undefined && message.role === "assistant" ? (message as AssistantMessage) : undefined
  const overflow = assistant !== undefined && assistant.stopReason !== "aborted" && overflowed(assistant, ctx)
  const aborted = outcome === "aborted" || assistant?.stopReason === "aborted" || ctx.signal?.aborted === true
  return { outcome: aborted ? "aborted" as const : outcome, overflow }
}

/** A finished assistant reply's facts for arming the boundary hooks: an overflow, or the tokens its request used. */
export const replyFacts = (message: AgentMessage, ctx: ExtensionContext): ReplyFacts => ({
  overflow: turnFacts("completed", message, ctx).overflow,
  tokens: replyTokens(message) ?? null
})
