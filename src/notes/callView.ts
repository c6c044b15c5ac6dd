/**
 * How the notes tools' calls and results read in Pi's TUI: the address, the
 * size and first line of what is written, the full text on expand. Pure and
 * Effect-free (the TUI loads it at start-up); arguments arrive as the model
 * wrote them, so every field is checked.
 */
import { shownName, shownText } from "../kernel/names.ts"
import { plural } from "../kernel/plural.ts"
import { formatBytes } from "./snapshot.ts"

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length

const firstLine = (text: string): string => {
  const line = text.split("\n").find((l) => l.trim() !== "")?.trim() ?? ""
  return Array.from(line).length > 80 ? `${Array.from(line).slice(0, 79).join("")}…` : line
}

export interface CallView {
  /** One line: the tool, the address and what the call does. */
  readonly summary: string
  /** The full text written, shown on expand (notes_write's body, notes_update's edits). */
  readonly body: string | undefined
}

export const notesCallView = (toolName: string, args: unknown): CallView => {
  const a = typeof args === "object" && args !== null ? args as Record<string, unknown> : {}
  const address = shownName(str(a.address) ?? "(no address)")
  switch (toolName) {
    case "notes_write": {
      const content = str(a.content) ?? ""
      const head = firstLine(content)
      return { summary: `${toolName} ${address} · ${formatBytes(utf8Bytes(content))}${head === "" ? "" : ` · ${shownText(head)}`}`, body: content }
    }
    case "notes_update": {
      const edits = Array.isArray(a.edits) ? a.edits as ReadonlyArray<{ oldText?: unknown; newText?: unknown }> : []
      const what = [
        edits.length > 0 ? plural(edits.length, "edit") : undefined,
        str(a.rename_to) === undefined ? undefined : `rename to ${shownName(str(a.rename_to)!)}`,
        a.retire === true ? "retire" : undefined
      ].filter((part) => part !== undefined)
      const body = edits.map((edit) => `- ${str(edit.oldText) ?? ""}\n+ ${str(edit.newText) ?? ""}`).join("\n\n")
      return { summary: `${toolName} ${address}${what.length === 0 ? "" : ` · ${what.join(", ")}`}`, body: body === "" ? undefined : body }
    }
    case "notes_read": {
      const offset = typeof a.offset === "number" ? ` from ${a.offset}` : ""
      return { summary: `${toolName} ${address}${offset}`, body: undefined }
    }
    case "notes_search":
      return { summary: `${toolName} ${JSON.stringify(str(a.query) ?? "")}${str(a.home) === undefined ? "" : ` in ${str(a.home)}`}`, body: undefined }
    default:
      return { summary: `${toolName}${str(a.home) === undefined ? "" : ` ${str(a.home)}`}`, body: undefined }
  }
}

/** A result: its first line collapsed, all of it expanded. */
export const notesResultView = (text: string, expanded: boolean): string => (expanded ? text : firstLine(text))
