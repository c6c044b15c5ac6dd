import type { RawEntry } from "../kernel/entries.ts"
import { estimateRequestTokens, type ProjectableMessage, projectRequest, type ProjectionWindow } from "./projection.ts"
import { isRecord } from "../kernel/record.ts"

/**
 * What one session entry puts into Pi's context, the way Pi's
 * `sessionEntryToContextMessages` builds it (on the fields the projection and
 * the estimate read): a message as it is, a custom message in the `custom`
 * role, a compaction as the system prompt it recorded and its summary.
 */
export const entryMessages = (entry: RawEntry): ReadonlyArray<ProjectableMessage & Record<string, unknown>> => {
  switch (entry.type) {
    case "message":
      return isRecord(entry.message) && typeof entry.message.role === "string"
        ? [entry.message as ProjectableMessage & Record<string, unknown>]
        : []
    case "custom_message":
      return [{ role: "custom", customType: entry.customType, content: entry.content ?? [], details: entry.details }]
    case "branch_summary":
      return typeof entry.summary === "string" && entry.summary !== "" ? [{ role: "branchSummary", summary: entry.summary }] : []
    case "compaction": {
      const summary = { role: "compactionSummary", summary: entry.summary }
      return isRecord(entry.systemMessage) && entry.systemMessage.role === "system"
        ? [entry.systemMessage as ProjectableMessage & Record<string, unknown>, summary]
        : [summary]
    }
    default:
      return []
  }
}

/** Whether an entry carries a system prompt into Pi's context: a system message, or a compaction that recorded one. */
export const carriesSystemPrompt = (entry: RawEntry): boolean => entryMessages(entry).some((message) => message.role === "system")

/**
 * The next request's size before one is built, from the branch: `entries`
 * (every entry that carries a system prompt into Pi's context, then the
 * window's own) as Pi puts them into its context and pi-context projects them
 * for `window`, estimated as Pi estimates a request with no reply in it: led
 * by Pi's current system message, all of the branch's system messages
 * replayed. Undefined when the window has no boot to start from.
 */
export const nextRequestTokens = (entries: ReadonlyArray<RawEntry>, window: ProjectionWindow): number | undefined => {
  const messages = entries.flatMap(entryMessages)
  const projection = projectRequest(messages, window)
  if (projection._tag === "MissingBoot") return undefined
  const sent = (projection._tag === "Projected" ? projection.messages : messages).filter((message) => message.role !== "system")
  return estimateRequestTokens([...messages.filter((message) => message.role === "system"), ...sent]).tokens
}
