import type { SessionEntry } from "@earendil-works/pi-coding-agent"

/** A compact name for each entry: `message:user`, `custom:pi-context/reset-marker`, ... */
export const kinds = (entries: ReadonlyArray<SessionEntry>): Array<string> =>
  entries.map((entry) => {
    switch (entry.type) {
      case "message":
        return `message:${entry.message.role}`
      case "custom":
      case "custom_message":
        return `${entry.type}:${entry.customType}`
      default:
        return entry.type
    }
  })

export const ofCustomType = (entries: ReadonlyArray<SessionEntry>, customType: string) =>
  entries.filter((entry) => (entry.type === "custom" || entry.type === "custom_message") && entry.customType === customType)

/** The text of a provider request's messages, role-tagged, for assertions. */
export const requestText = (messages: ReadonlyArray<{ role: string; content: unknown }>): Array<string> =>
  messages.map((message) => {
    const content = typeof message.content === "string"
      ? message.content
      : Array.isArray(message.content)
      ? message.content.map((part: { type: string; text?: string; name?: string }) => part.text ?? `[${part.type}${part.name ? `:${part.name}` : ""}]`).join("")
      : ""
    return `${message.role}: ${content}`
  })

/** The conversation a provider saw: its messages without the system slot (the prompt is `systemPrompt`). */
export const conversation = (request: { readonly messages: ReadonlyArray<unknown> }): Array<string> =>
  requestText(request.messages as ReadonlyArray<{ role: string; content: unknown }>).filter((line) => !line.startsWith("system:"))

export interface ToolResult {
  readonly toolName: string
  readonly text: string
  readonly isError: boolean
  /** The tool's own details, read the way a model reads a result. */
  readonly details: any
}

/** Every tool result on the session, in order, with its text joined. */
export const toolResults = (entries: ReadonlyArray<SessionEntry>): Array<ToolResult> =>
  entries.flatMap((entry) => {
    if (entry.type !== "message" || entry.message.role !== "toolResult") return []
    const message = entry.message
    const text = message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("")
    return [{ toolName: message.toolName, text, isError: message.isError, details: message.details }]
  })
