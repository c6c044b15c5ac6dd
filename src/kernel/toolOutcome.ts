import { ToolResultByteLimit } from "./protocol.ts"

/** Stable error codes a model can branch on. */
export type ToolErrorCode =
  | "not_found"
  | "no_match"
  | "ambiguous_edit"
  | "invalid_address"
  | "name_too_long"
  | "invalid_argument"
  | "too_large"
  | "locked"
  | "io_error"
  | "io_permanent"
  | "not_on_branch"
  | "unknown_window"
  | "bad_regex"
  | "timed_out"
  | "disabled"
  /** A note in a protected or read-only home the user did not let the model change. */
  | "protected"

/** What a pi-context tool returns, before the adapter turns it into a Pi tool result. */
export type ToolOutcome =
  | { readonly _tag: "Ok"; readonly text: string; readonly details?: unknown; readonly terminate?: boolean }
  | { readonly _tag: "Failed"; readonly code: ToolErrorCode; readonly text: string }

export const ok = (text: string, details?: unknown): ToolOutcome => ({ _tag: "Ok", text, details })

/**
 * A failed call: its code goes to the result's details (for hosts and tests to branch on), never into its
 * text, which the model and the user read: a sentence of what happened and what to do, with no internal tag.
 */
export const failed = (code: ToolErrorCode, text: string): ToolOutcome => ({ _tag: "Failed", code, text })

const encoder = new TextEncoder()

export const utf8Length = (text: string): number => encoder.encode(text).length

/**
 * Cuts `text` to at most `limit` UTF-8 bytes on a code-point boundary, so
 * that a result can never exceed the tool bound. Callers that page their
 * output add their own continuation; this is the last line of defence.
 */
export const truncateUtf8 = (text: string, limit: number = ToolResultByteLimit): { readonly text: string; readonly truncated: boolean } => {
  if (text.length <= limit / 4 || utf8Length(text) <= limit) return { text, truncated: false }
  // encodeInto writes whole code points only, a lone surrogate as 3 bytes: `read` is where the cut falls.
  const { read } = encoder.encodeInto(text, new Uint8Array(limit))
  return { text: text.slice(0, read), truncated: true }
}

/**
 * A result in three parts. `tail` holds the continuation (a cursor, an
 * offset, the next call) and is never cut; `head` is cut only when it alone
 * would not leave the tail room; `body` gives way first, with a visible mark.
 */
export interface ResultParts {
  readonly head: string
  readonly body?: string | undefined
  readonly tail?: string | undefined
}

export const CutMark = "[… cut here: the result reached the 32 KiB tool bound]"

const joinParts = (parts: ReadonlyArray<string>): string => parts.filter((part) => part !== "").join("\n")

/** The parts joined by newlines, at most `limit` bytes, the tail whole. */
export const fitParts = (parts: ResultParts, limit: number = ToolResultByteLimit): string => {
  const body = parts.body ?? ""
  const tail = parts.tail ?? ""
  const whole = joinParts([parts.head, body, tail])
  if (utf8Length(whole) <= limit) return whole
  // A tail is short by construction (continuationCall); cutting it is the last resort.
  const keptTail = truncateUtf8(tail, limit).text
  const markBytes = utf8Length(CutMark) + 1
  const room = limit - utf8Length(keptTail) - (keptTail === "" ? 0 : 1)
  const headBytes = utf8Length(parts.head)
  if (headBytes + markBytes > room) {
    const head = truncateUtf8(parts.head, Math.max(0, room - markBytes)).text
    return joinParts([head, room >= markBytes ? CutMark : "", keptTail])
  }
  const bodyRoom = room - headBytes - (parts.head === "" ? 0 : 1) - markBytes
  return joinParts([parts.head, truncateUtf8(body, Math.max(0, bodyRoom)).text, CutMark, keptTail])
}

/** A continuation is kept under this many bytes, so the room it takes from a page is small and known. */
export const ContinuationByteLimit = 2048

/**
 * The call that continues a page: `tool {args…, cursor…}` when that is short,
 * else the cursor alone for a call with the same arguments (a 30 KB query is
 * not echoed back). Never over `ContinuationByteLimit` bytes.
 */
export const continuationCall = (tool: string, args: Readonly<Record<string, unknown>>, cursor: Readonly<Record<string, unknown>>): string => {
  const full = `${tool} ${JSON.stringify({ ...args, ...cursor })}`
  if (utf8Length(full) <= ContinuationByteLimit) return full
  return truncateUtf8(`${tool} with the same arguments as this call, plus ${JSON.stringify(cursor)}`, ContinuationByteLimit).text
}

const invisible = /[\p{Cc}\p{Cf}\u2028\u2029\uD800-\uDFFF]/gu

/**
 * User input shown back in a message: cut to `points` code points with an
 * ellipsis, and with controls and invisible format characters (a
 * right-to-left override) written as `\u{202E}`, so they cannot garble it.
 */
export const echo = (text: string, points: number = 120): string =>
  clip(text, points).replace(invisible, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`)

/** `text` cut to `points` code points, with an ellipsis when cut. */
export const clip = (text: string, points: number): string => {
  if (text.length <= points) return text
  const all = Array.from(text)
  return all.length <= points ? text : `${all.slice(0, points).join("")}…`
}
