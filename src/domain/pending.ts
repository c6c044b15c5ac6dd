import type { RawEntry } from "./entries.ts"
import { userMessageText } from "./entries.ts"
import { messageOfRole } from "./messageOfRole.ts"

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
  return message.content.some((part: unknown) =>
    typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" &&
    typeof (part as { text?: unknown }).text === "string" && (part as { text: string }).text.trim() !== ""
  )
}

/** The user's latest message in the window when no assistant text reply that ended a run follows it. */
export const pendingRequest = (entries: ReadonlyArray<RawEntry>): string | undefined => {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!
    if (isFinishedReply(entry)) return undefined
    const text = userMessageText(entry)
    if (text !== undefined) return text.trim() === "" ? undefined : text
  }
  return undefined
}
