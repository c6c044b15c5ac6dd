import { ToolResultByteLimit } from "./protocol.ts"

/** Stable error codes a model can branch on. */
export type ToolErrorCode =
  | "not_found"
  | "no_match"
  | "ambiguous_edit"
  | "invalid_address"
  | "invalid_argument"
  | "too_large"
  | "locked"
  | "io_error"
  | "not_on_branch"
  | "unknown_window"
  | "bad_regex"
  | "timed_out"
  | "disabled"

/** What a pi-context tool returns, before the adapter turns it into a Pi tool result. */
export type ToolOutcome =
  | { readonly _tag: "Ok"; readonly text: string; readonly details?: unknown; readonly terminate?: boolean }
  | { readonly _tag: "Failed"; readonly code: ToolErrorCode; readonly text: string }

export const ok = (text: string, details?: unknown): ToolOutcome => ({ _tag: "Ok", text, details })

export const failed = (code: ToolErrorCode, text: string): ToolOutcome => ({ _tag: "Failed", code, text: `${code}: ${text}` })

const encoder = new TextEncoder()

export const utf8Length = (text: string): number => encoder.encode(text).length

/**
 * Cuts `text` to at most `limit` UTF-8 bytes on a code-point boundary, so
 * that a result can never exceed the tool bound. Callers that page their
 * output add their own continuation; this is the last line of defence.
 */
export const truncateUtf8 = (text: string, limit: number = ToolResultByteLimit): { readonly text: string; readonly truncated: boolean } => {
  if (text.length <= limit / 4 || utf8Length(text) <= limit) return { text, truncated: false }
  let bytes = 0
  let end = 0
  for (const char of text) {
    const size = char.codePointAt(0)! < 0x80 ? 1 : char.codePointAt(0)! < 0x800 ? 2 : char.codePointAt(0)! < 0x10000 ? 3 : 4
    if (bytes + size > limit) break
    bytes += size
    end += char.length
  }
  return { text: text.slice(0, end), truncated: true }
}
