import { Clock, Effect, Result, Schema } from "effect"
import { formatAge, formatBytes, noteRowLine } from "../domain/boot.ts"
import { type Home, homeLabel, homeOrder, parseAddress, parseHome } from "../domain/notes/address.ts"
import { notesIdentity } from "../layers/notes/identity.ts"
import type { NotesIdentity } from "../domain/notes/identity.ts"
import { listLimit, readLimit, searchLimit } from "../domain/notes/limits.ts"
import { addressMatcher, encodeListCursor, encodeSearchCursor } from "../domain/notes/paging.ts"
import { ToolName, ToolResultByteLimit } from "../domain/protocol.ts"
import { textWindow } from "../domain/textWindow.ts"
import { failed, ok, type ToolOutcome, truncateUtf8, utf8Length } from "../domain/toolOutcome.ts"
import {
  type AmbiguousEdit,
  type InvalidAddress,
  type InvalidNoteRequest,
  type InvalidSearchPattern,
  type NoMatch,
  type NoteLocked,
  type NoteNotFound,
  NotesStore,
  type NotesHomeUnavailable,
  type NotesIoError,
  type NoteTooLarge,
  type SearchHit
} from "../services/NotesStore.ts"
import { PiSession } from "../services/PiSession.ts"
import { decodeParams, InvalidParams } from "./params.ts"


const Int = Schema.Int
const OptionalLimit = Schema.optionalKey(Int.check(Schema.isGreaterThanOrEqualTo(1)))

const WriteParams = Schema.Struct({ address: Schema.String, content: Schema.String })
const UpdateParams = Schema.Struct({
  address: Schema.String,
  edits: Schema.optionalKey(Schema.Array(Schema.Struct({ oldText: Schema.String, newText: Schema.String }))),
  rename_to: Schema.optionalKey(Schema.String),
  retire: Schema.optionalKey(Schema.Boolean)
})
const ReadParams = Schema.Struct({ address: Schema.String, offset: Schema.optionalKey(Int), limit: OptionalLimit })
const ListParams = Schema.Struct({
  home: Schema.optionalKey(Schema.String),
  pattern: Schema.optionalKey(Schema.String),
  cursor: Schema.optionalKey(Schema.String),
  limit: OptionalLimit,
  wastebasket: Schema.optionalKey(Schema.Boolean)
})
const SearchParams = Schema.Struct({
  query: Schema.String.check(Schema.isMinLength(1)),
  regex: Schema.optionalKey(Schema.Boolean),
  home: Schema.optionalKey(Schema.String),
  cursor: Schema.optionalKey(Schema.String),
  limit: OptionalLimit
})

const decodeHome = (raw: string | undefined): Effect.Effect<Home | undefined, InvalidParams> => {
  if (raw === undefined) return Effect.succeed(undefined)
  const home = parseHome(raw)
  return home === undefined
    ? Effect.fail(new InvalidParams({ message: `unknown home "${raw}"; use session, @project, @user, @agent or @model` }))
    : Effect.succeed(home)
}

type NotesToolError =
  | InvalidParams
  | InvalidAddress
  | NoteNotFound
  | NoteTooLarge
  | NoteLocked
  | AmbiguousEdit
  | NoMatch
  | InvalidNoteRequest
  | InvalidSearchPattern
  | NotesIoError

/** Every failure becomes a tool error with a stable code and a sentence the model can act on. */
/** A store error as the model reads it: the error's own sentence, under its code. */
export const describeFailure = (error: NotesToolError): ToolOutcome => {
  switch (error._tag) {
    case "InvalidParams":
    case "InvalidNoteRequest":
      return failed("invalid_argument", error.message)
    case "AmbiguousEdit":
      return failed("ambiguous_edit", `${error.address}: ${error.message}`)
    case "NoMatch":
      return failed("no_match", `${error.address}: ${error.message}`)
    default:
      return failed(error.code, error.message)
  }
}

const asOutcome = <E extends NotesToolError, R>(effect: Effect.Effect<ToolOutcome, E, R>): Effect.Effect<ToolOutcome, never, R> =>
  Effect.catch(effect, (error) => Effect.succeed(describeFailure(error)))

const unavailableLine = (unavailable: ReadonlyArray<NotesHomeUnavailable>, tool: string): ReadonlyArray<string> =>
  unavailable.length === 0 ? [] : [
    `Unavailable homes (not included): ${unavailable.map((u) => `${homeLabel(u.home)} (${u.reason})`).join(", ")}. Retry with ${tool} later.`
  ]

/** Joins `header`, as many `lines` as fit the tool bound, and the footer for the count that fit. */
const fitLines = (header: ReadonlyArray<string>, lines: ReadonlyArray<string>, footer: (shown: number) => ReadonlyArray<string>): { readonly text: string; readonly shown: number } => {
  const reserve = 1024
  let bytes = utf8Length(header.join("\n")) + reserve
  let shown = 0
  while (shown < lines.length && bytes + utf8Length(lines[shown]!) + 1 <= ToolResultByteLimit) {
    bytes += utf8Length(lines[shown]!) + 1
    shown++
  }
  const text = [...header, ...lines.slice(0, shown), ...footer(shown)].join("\n")
  return { text: truncateUtf8(text).text, shown }
}

const notesWrite = Effect.fn("tools.notes_write")(function*(params: unknown) {
  const { address, content } = yield* decodeParams(WriteParams, ToolName.notesWrite)(params)
  const identity = yield* notesIdentity()
  const result = yield* (yield* NotesStore).write(identity, address, content)
  return ok(`${result.created ? "Created" : "Replaced"} ${result.address} (${formatBytes(result.bytes)}).`, result)
}, asOutcome)

const notesUpdate = Effect.fn("tools.notes_update")(function*(params: unknown) {
  const decoded = yield* decodeParams(UpdateParams, ToolName.notesUpdate)(params)
  const identity = yield* notesIdentity()
  const edits = decoded.edits ?? []
  if (decoded.retire === true) return yield* retireNote(identity, decoded.address, edits.length > 0 || decoded.rename_to !== undefined)
  const result = yield* (yield* NotesStore).update(identity, decoded.address, edits, decoded.rename_to)
  const applied = result.editsApplied === 0 ? "" : `${result.editsApplied} ${result.editsApplied === 1 ? "edit" : "edits"} applied`
  const renamed = result.renamedFrom === undefined ? "" : `renamed from ${result.renamedFrom}`
  return ok(`Updated ${result.address}: ${[applied, renamed].filter((part) => part !== "").join(", ")} (${formatBytes(result.bytes)}).`, result)
}, asOutcome)

/** Soft delete: the note leaves the boot and notes_list for its home's wastebasket, and stays in the history. */
const retireNote = Effect.fnUntraced(function*(identity: NotesIdentity, address: string, alsoEdits: boolean) {
  if (alsoEdits) {
    return yield* new InvalidParams({ message: `${ToolName.notesUpdate}: retire cannot be combined with edits or rename_to; retire the note alone` })
  }
  const result = yield* (yield* NotesStore).retire(identity, address)
  return ok(
    `Retired ${result.address} (${formatBytes(result.bytes)}): it is out of the boot and notes_list, kept in the wastebasket ` +
      `(notes_list { "wastebasket": true }) and in the notes history. Remove it from the home's MAP if the MAP lists it.`,
    { address: result.address, retired: true }
  )
})

const notesRead = Effect.fn("tools.notes_read")(function*(params: unknown) {
  const decoded = yield* decodeParams(ReadParams, ToolName.notesRead)(params)
  const identity = yield* notesIdentity()
  const note = yield* (yield* NotesStore).read(identity, decoded.address)
  const window = textWindow(note.body, decoded.offset ?? 0, Math.min(decoded.limit ?? readLimit.default, readLimit.max))
  const end = window.offset + [...window.text].length
  const range = window.total === 0 ? "empty note" : `characters ${window.offset}-${end} of ${window.total}`
  const next = window.nextOffset === undefined
    ? "End of note."
    : `More follows: notes_read { "address": "${note.address}", "offset": ${window.nextOffset} }.`
  const updated = note.updated === undefined ? "" : `, updated ${note.updated}`
  const text = `${note.address} (${range}${updated}). ${next}\n\n${window.text}`
  return ok(truncateUtf8(text).text, { address: note.address, offset: window.offset, total: window.total, nextOffset: window.nextOffset ?? null })
}, asOutcome)

const notesList = Effect.fn("tools.notes_list")(function*(params: unknown) {
  const decoded = yield* decodeParams(ListParams, ToolName.notesList)(params)
  const home = yield* decodeHome(decoded.home)
  const identity = yield* notesIdentity()
  const limit = Math.min(decoded.limit ?? listLimit.default, listLimit.max)
  if (decoded.wastebasket === true) return yield* listWastebasket(identity, home, decoded.pattern, limit)
  const result = yield* (yield* NotesStore).list(identity, { home, pattern: decoded.pattern, cursor: decoded.cursor, limit })
  const now = yield* Clock.currentTimeMillis
  const continueWith = (cursor: string) =>
    `More notes: notes_list ${JSON.stringify({ ...decoded, cursor })}.`
  const fitted = fitLines(
    [result.rows.length === 0 ? "No notes match." : `Notes, most recent first:`],
    result.rows.map((row) => noteRowLine(row, now)),
    (shown) => {
      const last = result.rows[shown - 1]
      const cursor = shown < result.rows.length && last !== undefined
        ? encodeListCursor({ u: last.updatedMs, a: last.address })
        : result.nextCursor
      return [...unavailableLine(result.unavailable, ToolName.notesList), cursor === undefined ? "End of list." : continueWith(cursor)]
    }
  )
  return ok(fitted.text, { count: fitted.shown, unavailableHomes: result.unavailable.map((u) => u.home) })
}, asOutcome)

const listWastebasket = Effect.fnUntraced(function*(identity: NotesIdentity, home: Home | undefined, pattern: string | undefined, limit: number) {
  const matches = addressMatcher(pattern)
  const rows = (yield* (yield* NotesStore).listRetired(identity, home)).filter((row) => matches(row.address))
  const now = yield* Clock.currentTimeMillis
  const fitted = fitLines(
    [rows.length === 0 ? "The wastebasket is empty." : "Retired notes, most recently retired first (their history: /pi-context notes history <address>):"],
    rows.slice(0, limit).map((row) => `- ${row.address} · ${formatBytes(row.bytes)} · retired ${formatAge(row.updatedMs, now)}`),
    (shown) => [shown < rows.length ? `${rows.length - shown} more retired notes not shown; narrow with home or pattern.` : "End of wastebasket."]
  )
  return ok(fitted.text, { count: fitted.shown, wastebasket: true })
})

const hitLine = (hit: SearchHit): string => `- ${hit.address}:${hit.line} (offset ${hit.offset}): ${hit.text}`

const searchCursorAfter = (hit: SearchHit): string => {
  const parsed = Result.getOrThrow(parseAddress(hit.address))
  return encodeSearchCursor({ h: homeOrder(parsed.home), p: parsed.path, l: hit.line })
}

const notesSearch = Effect.fn("tools.notes_search")(function*(params: unknown) {
  const decoded = yield* decodeParams(SearchParams, ToolName.notesSearch)(params)
  const home = yield* decodeHome(decoded.home)
  const identity = yield* notesIdentity()
  const limit = Math.min(decoded.limit ?? searchLimit.default, searchLimit.max)
  const result = yield* (yield* NotesStore).search(identity, { query: decoded.query, regex: decoded.regex, home, cursor: decoded.cursor, limit })
  const fitted = fitLines(
    [result.hits.length === 0 ? "No matching lines." : "Matching lines (address:line, offset for notes_read):"],
    result.hits.map(hitLine),
    (shown) => {
      const last = result.hits[shown - 1]
      const cursor = shown < result.hits.length && last !== undefined ? searchCursorAfter(last) : result.nextCursor
      return [
        ...unavailableLine(result.unavailable, ToolName.notesSearch),
        ...(result.unreadable.length === 0 ? [] : [`Could not read (not searched): ${result.unreadable.slice(0, 10).join(", ")}.`]),
        cursor === undefined ? "End of results." : `More results: notes_search ${JSON.stringify({ ...decoded, cursor })}.`
      ]
    }
  )
  return ok(fitted.text, { count: fitted.shown, unavailableHomes: result.unavailable.map((u) => u.home) })
}, asOutcome)

/** One Effect handler per notes tool, keyed by the tool's protocol name. */
export const notesToolHandlers = {
  [ToolName.notesWrite]: notesWrite,
  [ToolName.notesUpdate]: notesUpdate,
  [ToolName.notesRead]: notesRead,
  [ToolName.notesList]: notesList,
  [ToolName.notesSearch]: notesSearch
} as const satisfies Record<string, (params: unknown) => Effect.Effect<ToolOutcome, never, NotesStore | PiSession>>

