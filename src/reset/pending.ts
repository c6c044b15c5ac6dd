import { bodyText, type RawEntry, userMessageText } from "../kernel/entries.ts"
import { messageOfRole } from "../kernel/messageOfRole.ts"

interface AssistantShape {
  readonly role?: unknown
  readonly stopReason?: unknown
  readonly content?: unknown
}

const assistantOf = (entry: RawEntry) => messageOfRole<AssistantShape>(entry, "assistant")

/**
 * Whether an entry is an assistant reply that ended a run: it stopped by
 * itself (not for tools, an error, an abort or the output limit) with some
 * text for the user.
 */
export const isFinishedReply = (entry: RawEntry): boolean => {
  const message = assistantOf(entry)
  if (message === undefined || message.stopReason !== "stop" || !Array.isArray(message.content)) return false
  return bodyText(message.content)!.trim() !== ""
}

/**
 * Whether an entry is an assistant message the user cut short: Pi records an
 * Escape as an `aborted` stop (before Pi 1.5, as an error saying the operation
 * was aborted).
 */
export const isCancelledReply = (entry: RawEntry): boolean => {
  const message = assistantOf(entry) as (AssistantShape & { readonly errorMessage?: unknown }) | undefined
  if (message === undefined) return false
  return message.stopReason === "aborted" ||
    (message.stopReason === "error" && typeof message.errorMessage === "string" && /\boperation was aborted\b/i.test(message.errorMessage))
}

/**
 * The user's latest message in the window when no assistant text reply that
 * ended a run follows it: `pending` if the run was still going (or failed),
 * `cancelled` if the user stopped it. A cancelled request must never be taken
 * up again on the model's own initiative.
 */
export type UnansweredRequest = { readonly text: string; readonly state: "pending" | "cancelled" }

export const unansweredRequest = (entries: ReadonlyArray<RawEntry>): UnansweredRequest | undefined => {
  let cancelled = false
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!
    if (isFinishedReply(entry)) return undefined
    if (isCancelledReply(entry)) cancelled = true
    const text = userMessageText(entry)
    if (text !== undefined) return text.trim() === "" ? undefined : { text, state: cancelled ? "cancelled" : "pending" }
  }
  return undefined
}
