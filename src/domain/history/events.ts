import { isRecord } from "../record.ts"
import type { RawEntry } from "../entries.ts"

/** The roles a model can filter history by. */
export const historyRoles = ["user", "assistant", "tool", "context"] as const
export type HistoryRole = typeof historyRoles[number]

/** `unfinished`: a call whose result never arrived (aborted turn, crash, or still running). */
export type ToolStatus = "ok" | "error" | "unfinished"

/**
 * One readable event of the session. Its document (what search matches and
 * `history_read` pages through) is `head + body`: a short head we compose
 * (tool name, arguments, status; a context label) and the body, which is the
 * very string Pi holds (message text, tool output), never a copy. It is built
 * when something first reads it (a search scanning it, a list previewing it,
 * a read), then kept: indexing a session decides seqs, roles and statuses only.
 */
export interface HistoryEvent {
  readonly seq: number
  readonly role: HistoryRole
  /** The entry that created the event (for a tool event: the assistant entry holding the call). */
  readonly entryId: string
  readonly timestamp: string
  /** A short name: the tool name, the custom type, or the role. */
  readonly kind: string
  readonly status: ToolStatus | undefined
  readonly head: string
  readonly body: string
}

/** The two halves of a document; see `HistoryEvent`. */
export interface Document {
  readonly head: string
  readonly body: string
}

export const documentLength = (event: Document): number => event.head.length + event.body.length

/** The whole document as one string: for reading a page, never for scanning. */
export const documentText = (event: Document): string => event.head.length === 0 ? event.body : event.head + event.body

/**
 * What one raw entry contributes, before seqs are assigned. The texts
 * (`document`, a call's `head`, a result's `output`) are composed when
 * called: the index calls them only for the events a tool call reads. Seq rules (stable
 * because each depends only on the entry itself and on earlier entries):
 * - a user message: one `user` event;
 * - an assistant message: one `assistant` event when it has text (or is an
 *   error without calls), then one `tool` event per tool-call part, in order;
 * - a tool result: no seq when it pairs with an earlier unpaired call of the
 *   same id (it completes that call's event), else one standalone `tool` event;
 * - a `!bash` run: one `tool` event named `bash`;
 * - extension messages (`custom_message` entries, `custom` role), compaction
 *   and branch summaries: one `context` event;
 * - everything else (plain custom entries such as reset markers, the empty
 *   compaction a reset writes before its marker, model and thinking changes,
 *   labels, session info, usage, context edits): no seq.
 */
export type EventDraft =
  | {
    readonly _tag: "Plain"
    readonly role: HistoryRole
    readonly kind: string
    readonly document: () => Document
    readonly status: ToolStatus | undefined
  }
  | { readonly _tag: "Call"; readonly callId: string; readonly name: string; readonly head: () => string; readonly args: unknown }
  | {
    readonly _tag: "Result"
    readonly callId: string
    readonly name: string
    readonly isError: boolean
    readonly output: () => string
  }

const stringField = (value: Record<string, unknown>, key: string): string | undefined =>
  typeof value[key] === "string" ? value[key] : undefined

/** Text of a message body: a string, or text parts (images named, never inlined). A lone text part is returned as is. */
export const contentText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  if (content.length === 1 && isRecord(content[0]) && content[0].type === "text" && typeof content[0].text === "string") return content[0].text
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

/** `name {args}`, the status line, then the output (absent while a call waits for its result). */
export const toolDocument = (callHead: string, status: string, output: string | undefined): Document =>
  output === undefined
    ? { head: `${callHead}\nstatus: ${status}`, body: "" }
    : { head: `${callHead}\nstatus: ${status}\n--- output ---\n`, body: output }

const plainText = (text: string): Document => ({ head: "", body: text })
const labelled = (label: string, text: string): Document => ({ head: `[${label}] `, body: text })

const callHead = (name: string, args: unknown): string => `${name} ${argumentsJson(args)}`

const plain = (role: HistoryRole, kind: string, document: () => Document, status?: ToolStatus): EventDraft => ({
  _tag: "Plain",
  role,
  kind,
  status,
  document
})

const assistantDrafts = (message: Record<string, unknown>): Array<EventDraft> => {
  const content = Array.isArray(message.content) ? message.content : []
  const texts: Array<string> = []
  const calls: Array<EventDraft> = []
  for (const part of content) {
    if (!isRecord(part)) continue
    if (part.type === "text" && typeof part.text === "string" && part.text.length > 0) texts.push(part.text)
    else if (part.type === "toolCall" && typeof part.id === "string" && typeof part.name === "string") {
      const { name, arguments: args } = part
      calls.push({ _tag: "Call", callId: part.id, name, head: () => callHead(name, args), args })
    }
  }
  const error = stringField(message, "errorMessage")
  if (error !== undefined) texts.push(`[error: ${error}]`)
  if (texts.length > 0 || calls.length === 0) {
    calls.unshift(plain("assistant", "assistant", () => plainText(texts.length === 1 ? texts[0]! : texts.join("\n"))))
  }
  return calls
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
  return plain("tool", "bash", () => toolDocument(callHead("bash", { command }), `${status} (${exit})`, stringField(message, "output") ?? ""), status)
}

const customDraft = (customType: unknown, content: unknown): EventDraft => {
  const kind = typeof customType === "string" && customType.length > 0 ? customType : "custom"
  return plain("context", kind, () => labelled(kind, contentText(content)))
}

const messageDrafts = (message: unknown): Array<EventDraft> => {
  if (!isRecord(message)) return []
  switch (message.role) {
    case "user":
      return [plain("user", "user", () => plainText(contentText(message.content)))]
    case "assistant":
      return assistantDrafts(message)
    case "toolResult": {
      const callId = stringField(message, "toolCallId")
      const name = stringField(message, "toolName") ?? "tool"
      const status: ToolStatus = message.isError === true ? "error" : "ok"
      return callId === undefined
        ? [plain("tool", name, () => toolDocument(name, status, contentText(message.content)), status)]
        : [{ _tag: "Result", callId, name, isError: message.isError === true, output: () => contentText(message.content) }]
    }
    case "bashExecution":
      return [bashDraft(message)]
    case "custom":
      return [customDraft(message.customType, message.content)]
    case "compactionSummary":
      return [plain("context", "compaction", () => labelled("compaction summary", stringField(message, "summary") ?? ""))]
    case "branchSummary":
      return [plain("context", "branch_summary", () => labelled("branch summary", stringField(message, "summary") ?? ""))]
    default:
      return []
  }
}

const isResetCompaction = (entry: RawEntry): boolean =>
  entry.summary === "" && typeof entry.details === "object" && entry.details !== null &&
  (entry.details as { source?: unknown }).source === "pi-context"

/** The events one raw entry contributes, in seq order. Never throws on odd shapes. */
export const draftsOfEntry = (entry: RawEntry): ReadonlyArray<EventDraft> => {
  switch (entry.type) {
    case "message":
      return messageDrafts(entry.message)
    case "custom_message":
      return [customDraft(entry.customType, entry.content)]
    case "compaction":
      // A reset's retain-none compaction says nothing; the marker after it starts the window.
      if (isResetCompaction(entry)) return []
      return [plain("context", "compaction", () => labelled("compaction summary", typeof entry.summary === "string" ? entry.summary : ""))]
    case "branch_summary":
      return [plain("context", "branch_summary", () => labelled("branch summary", typeof entry.summary === "string" ? entry.summary : ""))]
    default:
      return []
  }
}
