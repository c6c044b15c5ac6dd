import type { RawEntry } from "../entries.ts"
import { estimateMessageTokens, type ProjectableMessage } from "../projection.ts"
import { isRecord } from "../record.ts"

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

/** Pi's estimate of what an entry adds to a request. */
export const entryTokens = (entry: RawEntry): number =>
  entryMessages(entry).reduce((sum, message) => sum + estimateMessageTokens(message), 0)

/** Whether an entry carries a system prompt into Pi's context: a system message, or a compaction that recorded one. */
export const carriesSystemPrompt = (entry: RawEntry): boolean => entryMessages(entry).some((message) => message.role === "system")
