import { isRecord } from "../kernel/record.ts"
import type { RawEntry } from "../kernel/entries.ts"

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

/** A message entry's message, as a record (an odd shape reads as an empty one). */
const messageOf = (entry: RawEntry): Record<string, unknown> => (isRecord(entry.message) ? entry.message : {})

const customKind = (customType: unknown): string => typeof customType === "string" && customType.length > 0 ? customType : "custom"

/** How a document is composed from its entry: module-level functions, so indexing an entry allocates none. */
type Compose = (entry: RawEntry) => Document

const userDocument: Compose = (entry) => plainText(contentText(messageOf(entry).content))

const assistantDocument: Compose = (entry) => {
  const message = messageOf(entry)
  const texts: Array<string> = []
  for (const part of Array.isArray(message.content) ? message.content : []) {
    if (isRecord(part) && part.type === "text" && typeof part.text === "string" && part.text.length > 0) texts.push(part.text)
  }
  const error = stringField(message, "errorMessage")
  if (error !== undefined) texts.push(`[error: ${error}]`)
  return plainText(texts.length === 1 ? texts[0]! : texts.join("\n"))
}

const bashStatus = (message: Record<string, unknown>): ToolStatus =>
  message.cancelled === true ? "error" : typeof message.exitCode === "number" ? message.exitCode === 0 ? "ok" : "error" : "unfinished"

const bashDocument: Compose = (entry) => {
  const message = messageOf(entry)
  const exitCode = message.exitCode
  const exit = typeof exitCode === "number" ? `exit ${exitCode}` : message.cancelled === true ? "cancelled" : "no exit code"
  return toolDocument(callHead("bash", { command: stringField(message, "command") ?? "" }), `${bashStatus(message)} (${exit})`, stringField(message, "output") ?? "")
}

const resultName = (message: Record<string, unknown>): string => stringField(message, "toolName") ?? "tool"
const resultStatus = (message: Record<string, unknown>): ToolStatus => message.isError === true ? "error" : "ok"

/** The output a tool-result entry carries. */
export const resultOutput = (entry: RawEntry): string => contentText(messageOf(entry).content)

const standaloneResultDocument: Compose = (entry) => {
  const message = messageOf(entry)
  return toolDocument(resultName(message), resultStatus(message), resultOutput(entry))
}

const customMessageDocument: Compose = (entry) => {
  const message = messageOf(entry)
  return labelled(customKind(message.customType), contentText(message.content))
}
const customEntryDocument: Compose = (entry) => labelled(customKind(entry.customType), contentText(entry.content))
const compactionMessageDocument: Compose = (entry) => labelled("compaction summary", stringField(messageOf(entry), "summary") ?? "")
const branchSummaryMessageDocument: Compose = (entry) => labelled("branch summary", stringField(messageOf(entry), "summary") ?? "")
const compactionDocument: Compose = (entry) => labelled("compaction summary", typeof entry.summary === "string" ? entry.summary : "")
const branchSummaryDocument: Compose = (entry) => labelled("branch summary", typeof entry.summary === "string" ? entry.summary : "")

/** The `part`-th content part of an assistant entry, a tool call: `name {args}`. */
const callPart = (entry: RawEntry, part: number): Record<string, unknown> => {
  const content = messageOf(entry).content
  const found = Array.isArray(content) ? content[part] : undefined
  return isRecord(found) ? found : {}
}

/**
 * Receives the events one raw entry contributes, in seq order (the rules of
 * `EventDraft`), with what composes their texts, none of it called: indexing
 * a session reads only the entries' shapes.
 */
export interface EventSink {
  readonly plain: (role: HistoryRole, kind: string, status: ToolStatus | undefined, compose: Compose) => void
  /** The `part`-th content part of the assistant entry, a call. */
  readonly call: (callId: string, name: string, part: number) => void
  /** A result that pairs with the earliest call of its id still waiting, if any (else it is an event of its own). */
  readonly result: (callId: string, name: string, isError: boolean) => void
}

const visitAssistant = (entry: RawEntry, message: Record<string, unknown>, sink: EventSink): void => {
  const content = Array.isArray(message.content) ? message.content : []
  let texts = stringField(message, "errorMessage") === undefined ? 0 : 1
  let calls = 0
  for (const part of content) {
    if (!isRecord(part)) continue
    if (part.type === "text" && typeof part.text === "string" && part.text.length > 0) texts++
    else if (part.type === "toolCall" && typeof part.id === "string" && typeof part.name === "string") calls++
  }
  if (texts > 0 || calls === 0) sink.plain("assistant", "assistant", undefined, assistantDocument)
  for (let position = 0; calls > 0 && position < content.length; position++) {
    const part: unknown = content[position]
    if (isRecord(part) && part.type === "toolCall" && typeof part.id === "string" && typeof part.name === "string") {
      sink.call(part.id, part.name, position)
      calls--
    }
  }
}

const visitMessage = (entry: RawEntry, sink: EventSink): void => {
  const message = entry.message
  if (!isRecord(message)) return
  switch (message.role) {
    case "user":
      return sink.plain("user", "user", undefined, userDocument)
    case "assistant":
      return visitAssistant(entry, message, sink)
    case "toolResult": {
      const callId = stringField(message, "toolCallId")
      return callId === undefined
        ? sink.plain("tool", resultName(message), resultStatus(message), standaloneResultDocument)
        : sink.result(callId, resultName(message), message.isError === true)
    }
    case "bashExecution":
      return sink.plain("tool", "bash", bashStatus(message), bashDocument)
    case "custom":
      return sink.plain("context", customKind(message.customType), undefined, customMessageDocument)
    case "compactionSummary":
      return sink.plain("context", "compaction", undefined, compactionMessageDocument)
    case "branchSummary":
      return sink.plain("context", "branch_summary", undefined, branchSummaryMessageDocument)
  }
}

/** The compaction a reset wrote before resets hid Pi's context with edits (empty in the first releases, then a note to the user). */
const isResetCompaction = (entry: RawEntry): boolean =>
  typeof entry.details === "object" && entry.details !== null && (entry.details as { source?: unknown }).source === "pi-context"

/** Hands `sink` the events one raw entry contributes, in seq order. Never throws on odd shapes. */
export const visitEvents = (entry: RawEntry, sink: EventSink): void => {
  switch (entry.type) {
    case "message":
      return visitMessage(entry, sink)
    case "custom_message":
      return sink.plain("context", customKind(entry.customType), undefined, customEntryDocument)
    case "compaction":
      // A reset's compaction (older sessions) says nothing to the model: the marker after it starts the window.
      if (isResetCompaction(entry)) return
      return sink.plain("context", "compaction", undefined, compactionDocument)
    case "branch_summary":
      return sink.plain("context", "branch_summary", undefined, branchSummaryDocument)
  }
}

/** The events one raw entry contributes, in seq order, each text composed when called. Never throws on odd shapes. */
export const draftsOfEntry = (entry: RawEntry): ReadonlyArray<EventDraft> => {
  const drafts: Array<EventDraft> = []
  visitEvents(entry, {
    plain: (role, kind, status, compose) => void drafts.push({ _tag: "Plain", role, kind, status, document: () => compose(entry) }),
    call: (callId, name, part) => {
      const args = callPart(entry, part).arguments
      drafts.push({ _tag: "Call", callId, name, head: () => callHead(name, args), args })
    },
    result: (callId, name, isError) => void drafts.push({ _tag: "Result", callId, name, isError, output: () => resultOutput(entry) })
  })
  return drafts
}
