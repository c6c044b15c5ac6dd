import { Option, Schema } from "effect"
import { CustomType } from "./protocol.ts"
import { ResetShown } from "./resetData.ts"

/**
 * The loose shape of any Pi session entry, as it arrives from the session.
 * Everything beyond these four fields is decoded on demand, never trusted.
 */
export interface RawEntry {
  readonly type: string
  readonly id: string
  readonly parentId: string | null
  readonly timestamp: string
  readonly [field: string]: unknown
}

/**
 * A window id as pi-context writes it (`pcx:<session>:<hex>`), loosely: one
 * token of visible ASCII. A forged id of any other shape (a line break, a
 * whole paragraph) would be echoed into the next boot as its text. Length is
 * not judged here: the tool results that echo an id bound themselves.
 */
export const WindowId = Schema.String.check(Schema.isPattern(/^[\x21-\x7e]+$/))

/**
 * A reset marker's data: the window it opens and, since the Window room, the
 * reset's source (how the previous window ended) and what its chat entry
 * shows. Older markers have neither.
 */
export const ResetMarkerData = Schema.Struct({
  windowId: WindowId,
  source: Schema.optionalKey(Schema.String),
  shown: Schema.optionalKey(ResetShown)
})
export type ResetMarkerData = typeof ResetMarkerData.Type

/** Details of a boot and of the guidance/warning reminders: the window they were written for. */
export const WindowDetails = Schema.Struct({ windowId: WindowId })

export const StateData = Schema.Struct({ enabled: Schema.Boolean })
export type StateData = typeof StateData.Type

/** Whether a raw entry is a reset marker (its data decoded or not): where a window starts. */
export const isMarkerEntry = (entry: RawEntry): boolean => entry.type === "custom" && entry.customType === CustomType.resetMarker

const decodeMarker = Schema.decodeUnknownOption(ResetMarkerData)
const decodeWindowDetails = Schema.decodeUnknownOption(WindowDetails)
const decodeState = Schema.decodeUnknownOption(StateData)

/** One branch entry, classified into what pi-context cares about. */
export type BranchEntry =
  /** `source`: the reset that wrote the marker, as recorded (absent on markers written before it was). */
  | { readonly _tag: "Marker"; readonly id: string; readonly timestamp: string; readonly windowId: string; readonly source?: string }
  | { readonly _tag: "Boot"; readonly id: string; readonly timestamp: string; readonly windowId: string }
  | { readonly _tag: "Continuation"; readonly id: string; readonly timestamp: string }
  | {
    readonly _tag: "Reminder"
    readonly id: string
    readonly timestamp: string
    readonly kind: "guidance" | "warning"
    readonly windowId: string
  }
  | { readonly _tag: "State"; readonly id: string; readonly timestamp: string; readonly enabled: boolean }
  /** A conversation message: user, assistant, tool result, bash run, or another extension's visible message. */
  | { readonly _tag: "Message"; readonly id: string; readonly timestamp: string; readonly role: string }
  /** Entries that never reach the model: model/thinking changes, labels, session info, other extensions' state. */
  | { readonly _tag: "Metadata"; readonly id: string; readonly timestamp: string; readonly type: string }
  | { readonly _tag: "Compaction"; readonly id: string; readonly timestamp: string; readonly summary: string }
  | { readonly _tag: "BranchSummary"; readonly id: string; readonly timestamp: string }
  /**
   * An entry that claims to be pi-context's but does not decode (`ours`), or
   * an entry of a shape this version does not know. Never trusted.
   */
  | { readonly _tag: "Foreign"; readonly id: string; readonly timestamp: string; readonly reason: string; readonly ours: boolean }

const metadataTypes = new Set(["model_change", "thinking_level_change", "label", "session_info", "usage", "context_edit"])

const foreign = (raw: RawEntry, reason: string, ours = true): BranchEntry => ({
  _tag: "Foreign",
  id: raw.id,
  timestamp: raw.timestamp,
  reason,
  ours
})

const messageRole = (message: unknown): string | undefined =>
  typeof message === "object" && message !== null && typeof (message as { role?: unknown }).role === "string"
    ? (message as { role: string }).role
    : undefined

/** Classify one raw entry. Never throws: anything unexpected becomes `Foreign`. */
export const classifyEntry = (raw: RawEntry): BranchEntry => {
  const { id, timestamp } = raw
  switch (raw.type) {
    case "custom": {
      switch (raw.customType) {
        case CustomType.resetMarker:
          return Option.match(decodeMarker(raw.data), {
            onNone: () => foreign(raw, "reset marker without a valid windowId"),
            onSome: ({ windowId, source }) =>
              source === undefined ? { _tag: "Marker", id, timestamp, windowId } : { _tag: "Marker", id, timestamp, windowId, source }
          })
        case CustomType.state:
          return Option.match(decodeState(raw.data), {
            onNone: () => foreign(raw, "state entry without a boolean `enabled`"),
            onSome: ({ enabled }) => ({ _tag: "State", id, timestamp, enabled })
          })
        default:
          return { _tag: "Metadata", id, timestamp, type: `custom:${String(raw.customType)}` }
      }
    }
    case "custom_message": {
      switch (raw.customType) {
        case CustomType.boot:
          return Option.match(decodeWindowDetails(raw.details), {
            onNone: () => foreign(raw, "boot without a valid details.windowId"),
            onSome: ({ windowId }) => ({ _tag: "Boot", id, timestamp, windowId })
          })
        case CustomType.continuation:
          return { _tag: "Continuation", id, timestamp }
        case CustomType.guidance:
        case CustomType.warning: {
          const kind = raw.customType === CustomType.guidance ? "guidance" : "warning"
          return Option.match(decodeWindowDetails(raw.details), {
            onNone: () => foreign(raw, `${kind} without a valid details.windowId`),
            onSome: ({ windowId }) => ({ _tag: "Reminder", id, timestamp, kind, windowId })
          })
        }
        default:
          return { _tag: "Message", id, timestamp, role: "custom" }
      }
    }
    case "message": {
      const role = messageRole(raw.message)
      return role === undefined ? foreign(raw, "message entry without a role", false) : { _tag: "Message", id, timestamp, role }
    }
    case "compaction":
      return {
        _tag: "Compaction",
        id,
        timestamp,
        summary: typeof raw.summary === "string" ? raw.summary : ""
      }
    case "branch_summary":
      return { _tag: "BranchSummary", id, timestamp }
    default:
      return metadataTypes.has(raw.type) ? { _tag: "Metadata", id, timestamp, type: raw.type } : foreign(raw, `unknown entry type ${raw.type}`, false)
  }
}

/** The text of a message body as Pi reads it: a string as it is, else its text parts joined by line breaks; undefined for anything else. */
export const bodyText = (content: unknown): string | undefined => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return undefined
  return content
    .flatMap((part) =>
      typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" &&
        typeof (part as { text?: unknown }).text === "string"
        ? [(part as { text: string }).text]
        : []
    )
    .join("\n")
}

/** The text of a user message entry (its text parts joined), or undefined for any other entry. */
export const userMessageText = (raw: RawEntry): string | undefined =>
  raw.type !== "message" || messageRole(raw.message) !== "user" ? undefined : bodyText((raw.message as { content?: unknown }).content)
