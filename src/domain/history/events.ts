import type { RawEntry } from "../entries.ts"

/** The roles a model can filter history by. */
export const historyRoles = ["user", "assistant", "tool", "context"] as const
export type HistoryRole = typeof historyRoles[number]

/** `unfinished`: a call whose result never arrived (aborted turn, crash, or still running). */
export type ToolStatus = "ok" | "error" | "unfinished"

/**
 * One readable event of the session. `text` is its document: what search
 * matches and what `history_read` pages through. It is built once, when the
 * event is indexed; a tool call's text is built again once, when its result
 * pairs with it.
 */
export interface HistoryEvent {
  readonly seq: number
  readonly role: HistoryRole
  /** The entry that created the event (for a tool event: the assistant entry holding the call). */
  readonly entryId: string
  readonly timestamp: string
  /** A short name: the tool name, the custom type, or the role. */
  readonly kind: string
  status: ToolStatus | undefined
  text: string
}

/**
 * What one raw entry contributes, before seqs are assigned. Seq rules (stable
 * because each depends only on the entry itself and on earlier entries):
 * - a user message: one `user` event;
 * - an assistant message: one `assistant` event when it has text (or is an
 *   error without calls), then one `tool` event per tool-call part, in order;
 * - a tool result: no seq when it pairs with an earlier unpaired call of the
 *   same id (it completes that call's event), else one standalone `tool` event;
 * - a `!bash` run: one `tool` event named `bash`;
 * - extension messages (`custom_message` entries, `custom` role), compaction
 *   and branch summaries: one `context` event;
 * - everything else (plain custom entries such as reset markers, model and
 *   thinking changes, labels, session info, usage, context edits): no seq.
 */
export type EventDraft =
  | {
    readonly _tag: "Plain"
    readonly role: HistoryRole
    readonly kind: string
    readonly text: string
    readonly status?: ToolStatus
  }
  | { readonly _tag: "Call"; readonly callId: string; readonly name: string; readonly head: string }
  | {
    readonly _tag: "Result"
    readonly callId: string
    readonly name: string
    readonly isError: boolean
    readonly output: string
  }

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const stringField = (value: Record<string, unknown>, key: string): string | undefined =>
  typeof value[key] === "string" ? value[key] : undefined

/** Text of a message body: a string, or text parts (images named, never inlined). */
export const contentText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  const parts: Array<string> = []
  for (const part of content) {
    if (!isRecord(part)) continue
    if (part.type === "text" && typeof part.text === "string") parts.push(part.text)
    else if (part.type === "image") parts.push(`[image ${stringField(part, "mimeType") ?? ""}]`.replace(" ]", "]"))
  }
  return parts.join("\n")
}

/** JSON of tool arguments; a value that cannot be serialised is described, never thrown. */
const argumentsJson = (args: unknown): string => {
  if (args === undefined) return "{}"
  try {
    return JSON.stringify(args) ?? "{}"
  } catch {
    return "{\"unserialisable\":true}"
  }
}

export const toolDocument = (name: string, head: string, status: ToolStatus, output: string | undefined): string =>
  output === undefined ? `${head}\nstatus: ${status}` : `${head}\nstatus: ${status}\n--- output ---\n${output}`

const callHead = (name: string, args: unknown): string => `${name} ${argumentsJson(args)}`

const assistantDrafts = (message: Record<string, unknown>): Array<EventDraft> => {
  const content = Array.isArray(message.content) ? message.content : []
  const texts: Array<string> = []
  const calls: Array<EventDraft> = []
  for (const part of content) {
    if (!isRecord(part)) continue
    if (part.type === "text" && typeof part.text === "string" && part.text.length > 0) texts.push(part.text)
    else if (part.type === "toolCall" && typeof part.id === "string" && typeof part.name === "string") {
      calls.push({ _tag: "Call", callId: part.id, name: part.name, head: callHead(part.name, part.arguments) })
    }
  }
  const error = stringField(message, "errorMessage")
  if (error !== undefined) texts.push(`[error: ${error}]`)
  const drafts: Array<EventDraft> = []
  if (texts.length > 0 || calls.length === 0) {
    drafts.push({ _tag: "Plain", role: "assistant", kind: "assistant", text: texts.join("\n") })
  }
  return drafts.concat(calls)
}

const bashDraft = (message: Record<string, unknown>): EventDraft => {
  const command = stringField(message, "command") ?? ""
  const exitCode = message.exitCode
  const status: ToolStatus = message.cancelled === true
    ? "error"
    : typeof exitCode === "number"
    ? exitCode === 0 ? "ok" : "error"
    : "unfinished"
  const exit = typeof exitCode === "number" ? `exit ${exitCode}` : message.cancelled === true ? "cancelled" : "no exit code"
  return {
    _tag: "Plain",
    role: "tool",
    kind: "bash",
    status,
    text: toolDocument("bash", callHead("bash", { command }), status, `${stringField(message, "output") ?? ""}\n[${exit}]`)
  }
}

const customDraft = (customType: unknown, content: unknown): EventDraft => {
  const kind = typeof customType === "string" && customType.length > 0 ? customType : "custom"
  return { _tag: "Plain", role: "context", kind, text: `[${kind}] ${contentText(content)}` }
}

const messageDrafts = (message: unknown): Array<EventDraft> => {
  if (!isRecord(message)) return []
  switch (message.role) {
    case "user":
      return [{ _tag: "Plain", role: "user", kind: "user", text: contentText(message.content) }]
    case "assistant":
      return assistantDrafts(message)
    case "toolResult": {
      const callId = stringField(message, "toolCallId")
      const name = stringField(message, "toolName") ?? "tool"
      const output = contentText(message.content)
      const status: ToolStatus = message.isError === true ? "error" : "ok"
      return callId === undefined
        ? [{ _tag: "Plain", role: "tool", kind: name, status, text: toolDocument(name, name, status, output) }]
        : [{ _tag: "Result", callId, name, isError: message.isError === true, output }]
    }
    case "bashExecution":
      return [bashDraft(message)]
    case "custom":
      return [customDraft(message.customType, message.content)]
    case "compactionSummary":
      return [{ _tag: "Plain", role: "context", kind: "compaction", text: `[compaction summary] ${stringField(message, "summary") ?? ""}` }]
    case "branchSummary":
      return [{ _tag: "Plain", role: "context", kind: "branch_summary", text: `[branch summary] ${stringField(message, "summary") ?? ""}` }]
    default:
      return []
  }
}

/** The events one raw entry contributes, in seq order. Never throws on odd shapes. */
export const draftsOfEntry = (entry: RawEntry): ReadonlyArray<EventDraft> => {
  switch (entry.type) {
    case "message":
      return messageDrafts(entry.message)
    case "custom_message":
      return [customDraft(entry.customType, entry.content)]
    case "compaction":
      return [{ _tag: "Plain", role: "context", kind: "compaction", text: `[compaction summary] ${typeof entry.summary === "string" ? entry.summary : ""}` }]
    case "branch_summary":
      return [{ _tag: "Plain", role: "context", kind: "branch_summary", text: `[branch summary] ${typeof entry.summary === "string" ? entry.summary : ""}` }]
    default:
      return []
  }
}
