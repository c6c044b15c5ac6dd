import { Clock, Effect, Schema } from "effect"
import { AddressByteLimit, splitFormattedAddress } from "./address.ts"
import { shownName } from "../kernel/names.ts"
import { listLimit, readLimit, searchLimit } from "./notesLimits.ts"
import { describeStoreFailure, type StoreFailure } from "./notesStoreFailure.ts"
import { addressMatcher, encodeListCursor, encodeSearchCursor } from "./paging.ts"
import { NotesUpdateMaxEdits, ToolName, ToolResultByteLimit } from "../kernel/protocol.ts"
import { continuationCall, echo, failed, fitParts, ok, type ToolOutcome, truncateUtf8, utf8Length } from "../kernel/toolOutcome.ts"
import { NotesHomes } from "./NotesHomes.ts"
import type { NotesHomeUnavailable, SearchHit } from "./NotesStore.ts"
import { PiSession } from "../kernel/PiSession.ts"
import type { Thresholds } from "../settings/Thresholds.ts"
import { ChangeRefused, gateChange } from "./consentGate.ts"
import { decodeParams, InvalidParams, pageLimit } from "../kernel/params.ts"
import { plural } from "../kernel/plural.ts"
import { type Home, homeLabel, homeOrder, parseHome } from "../kernel/homes.ts"
import { formatAge, formatBytes, noteRowLine } from "./snapshot.ts"

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

type NotesToolError = InvalidParams | ChangeRefused | StoreFailure

/** Every failure becomes a tool error with a stable code and a sentence the model can act on. */
export const describeFailure = (error: NotesToolError): ToolOutcome =>
  error._tag === "InvalidParams"
    ? failed("invalid_argument", error.message)
    : error._tag === "ChangeRefused"
    ? failed("protected", error.message)
    : describeStoreFailure(error)

const asOutcome = <E extends NotesToolError, R>(effect: Effect.Effect<ToolOutcome, E, R>): Effect.Effect<ToolOutcome, never, R> =>
  Effect.catch(effect, (error) => Effect.succeed(describeFailure(error)))

const unavailableLine = (unavailable: ReadonlyArray<NotesHomeUnavailable>, tool: string): ReadonlyArray<string> =>
  unavailable.length === 0 ? [] : [
    `Unavailable homes (not included): ${unavailable.map((u) => `${homeLabel(u.home)} (${u.reason}${u.fix === undefined ? "" : `; ${u.fix}`})`).join(", ")}.` +
    (unavailable.some((u) => u.fix === undefined) ? ` Retry with ${tool} later.` : "")
  ]

/**
 * Joins `header`, as many `lines` as fit the tool bound, and the footer for
 * the count that fit. The footer carries the cursor, so it is measured for
 * the very count shown and never cut; a line too long for a page is cut
 * instead, so a page always moves on.
 */
const fitLines = (header: ReadonlyArray<string>, lines: ReadonlyArray<string>, footer: (shown: number) => ReadonlyArray<string>): { readonly text: string; readonly shown: number } => {
  const head = header.join("\n")
  const tailOf = (shown: number): string => footer(shown).join("\n")
  const room = ToolResultByteLimit - utf8Length(head) - 2
  const lineRoom = Math.max(256, room - utf8Length(tailOf(0)) - 2 * ContinuationReserve)
  const fitted = lines.map((line) => (utf8Length(line) > lineRoom ? truncateLine(line, lineRoom) : line))
  let shown = 0
  let bytes = 0
  const firstTail = utf8Length(tailOf(lines.length)) + ContinuationReserve
  while (shown < fitted.length && bytes + utf8Length(fitted[shown]!) + 1 + firstTail <= room) bytes += utf8Length(fitted[shown++]!) + 1
  if (shown === 0 && fitted.length > 0) shown = 1
  let tail = tailOf(shown)
  while (shown > 1 && utf8Length(head) + bytes + utf8Length(tail) + 2 > ToolResultByteLimit) {
    bytes -= utf8Length(fitted[--shown]!) + 1
    tail = tailOf(shown)
  }
  return { text: fitParts({ head, body: fitted.slice(0, shown).join("\n"), tail }), shown }
}

/** Room a cursor's own size may vary by between the counts tried (an address of up to 512 bytes, encoded). */
const ContinuationReserve = 1024

const truncateLine = (line: string, bytes: number): string => `${truncateUtf8(line, bytes - 4).text}…`

/** A protected note the change would leave as it is: nobody is asked, nothing is written. */
const unchanged = (address: string): ToolOutcome => ok(`${address} already has this text: nothing was asked or written.`, { address, unchanged: true })

/** Whether a write tool's success changed nothing (the note already had the text). */
export const changedNothing = (outcome: ToolOutcome): boolean =>
  outcome._tag === "Ok" && typeof outcome.details === "object" && outcome.details !== null && (outcome.details as { readonly unchanged?: unknown }).unchanged === true

/** The user's way back from a change they allowed, as the result says it. */
const undoLine = (undo: string | undefined): string => (undo === undefined ? "" : ` The user allowed it. ${undo}`)

const notesWrite = Effect.fn("tools.notes_write")(function*(params: unknown) {
  const { address, content } = yield* decodeParams(WriteParams, ToolName.notesWrite)(params)
  const gate = yield* gateChange(address, { kind: "write", content })
  if (gate._tag === "Unchanged") return unchanged(gate.address)
  const result = yield* (yield* NotesHomes).write(address, content, { onlyNew: gate.onlyNew })
  return ok(`${result.created ? "Created" : "Replaced"} ${shownName(result.address)} (${formatBytes(result.bytes)}).${undoLine(gate.undo)}`, result)
}, asOutcome)

const notesUpdate = Effect.fn("tools.notes_update")(function*(params: unknown) {
  const decoded = yield* decodeParams(UpdateParams, ToolName.notesUpdate)(params)
  const edits = decoded.edits ?? []
  if (edits.length > NotesUpdateMaxEdits) {
    return yield* new InvalidParams({
      message: `notes_update takes at most ${NotesUpdateMaxEdits} edits per call and got ${edits.length}; send them in several calls, or replace the whole note with notes_write. Nothing was changed.`
    })
  }
  if (decoded.retire === true) return yield* retireNote(decoded.address, edits.length > 0 || decoded.rename_to !== undefined)
  const gate = yield* gateChange(
    decoded.address,
    edits.length === 0 && decoded.rename_to !== undefined ? { kind: "rename", renameTo: decoded.rename_to } : { kind: "edit", edits, renameTo: decoded.rename_to }
  )
  if (gate._tag === "Unchanged") return unchanged(gate.address)
  const result = yield* (yield* NotesHomes).update(decoded.address, edits, decoded.rename_to)
  const applied = result.editsApplied === 0 ? "" : `${plural(result.editsApplied, "edit")} applied`
  const renamed = result.renamedFrom === undefined ? "" : `renamed from ${result.renamedFrom}`
  return ok(
    `Updated ${shownName(result.address)}: ${[applied, renamed].filter((part) => part !== "").join(", ")} (${formatBytes(result.bytes)}).${undoLine(gate.undo)}`,
    result
  )
}, asOutcome)

/** Soft delete: the note leaves the boot and notes_list for its home's wastebasket, and stays in the history. */
const retireNote = Effect.fnUntraced(function*(address: string, alsoEdits: boolean) {
  if (alsoEdits) {
    return yield* new InvalidParams({ message: `${ToolName.notesUpdate}: retire cannot be combined with edits or rename_to; retire the note alone` })
  }
  const gate = yield* gateChange(address, { kind: "retire" })
  const result = yield* (yield* NotesHomes).retire(address)
  return ok(
    `Retired ${shownName(result.address)} (${formatBytes(result.bytes)}): it is out of the boot and notes_list, kept in the wastebasket ` +
      `(notes_list { "wastebasket": true }) and in the note versions. Remove it from the home's MAP if the MAP lists it.${gate._tag === "Go" ? undoLine(gate.undo) : ""}`,
    { address: result.address, retired: true }
  )
})

/** Bytes a `notes_read` header can take: the address twice (at most 515 bytes each) and the words around it. */
const ReadHeaderReserve = 2 * (AddressByteLimit + 3) + 256

const notesRead = Effect.fn("tools.notes_read")(function*(params: unknown) {
  const decoded = yield* decodeParams(ReadParams, ToolName.notesRead)(params)
  const note = yield* (yield* NotesHomes).readPage(decoded.address, {
    offset: decoded.offset ?? 0,
    limit: pageLimit(decoded.limit, readLimit),
    maxBytes: ToolResultByteLimit - ReadHeaderReserve
  })
  const window = note.window
  const end = window.offset + [...window.text].length
  const range = window.total === 0 ? "empty note" : `characters ${window.offset}-${end} of ${window.total}`
  const next = window.nextOffset === undefined
    ? "End of note."
    : `More follows: notes_read { "address": ${JSON.stringify(note.address)}, "offset": ${window.nextOffset} }.`
  const updated = note.updated === undefined ? "" : `, updated ${echo(note.updated, 40)}`
  const text = fitParts({ head: `${shownName(note.address)} (${range}${updated}). ${next}\n`, body: window.text })
  return ok(text, { address: note.address, offset: window.offset, total: window.total, nextOffset: window.nextOffset ?? null })
}, asOutcome)

const notesList = Effect.fn("tools.notes_list")(function*(params: unknown) {
  const decoded = yield* decodeParams(ListParams, ToolName.notesList)(params)
  const home = yield* decodeHome(decoded.home)
  const limit = pageLimit(decoded.limit, listLimit)
  if (decoded.wastebasket === true) return yield* listWastebasket(home, decoded.pattern, limit)
  const result = yield* (yield* NotesHomes).list({ home, pattern: decoded.pattern, cursor: decoded.cursor, limit })
  const now = yield* Clock.currentTimeMillis
  const continueWith = (cursor: string) => `More notes: ${continuationCall(ToolName.notesList, decoded, { cursor })}.`
  const fitted = fitLines(
    [result.rows.length > 0 ? "Notes, most recent first:" : result.stoppedEarly ? "No notes match so far." : "No notes match."],
    result.rows.map((row) => noteRowLine(row, now)),
    (shown) => {
      const last = result.rows[shown - 1]
      const cursor = shown < result.rows.length && last !== undefined
        ? encodeListCursor({ u: last.updatedMs, a: last.address })
        : result.nextCursor
      return [
        ...unavailableLine(result.unavailable, ToolName.notesList),
        ...(result.stoppedEarly && shown === result.rows.length ? ["The listing stopped on its time budget before reaching the end; more notes may match."] : []),
        cursor === undefined ? "End of list." : continueWith(cursor)
      ]
    }
  )
  return ok(fitted.text, { count: fitted.shown, unavailableHomes: result.unavailable.map((u) => u.home) })
}, asOutcome)

const listWastebasket = Effect.fnUntraced(function*(home: Home | undefined, pattern: string | undefined, limit: number) {
  const matches = addressMatcher(pattern)
  const rows = (yield* (yield* NotesHomes).listRetired(home)).filter((row) => matches(row.address))
  const now = yield* Clock.currentTimeMillis
  const fitted = fitLines(
    [rows.length === 0 ? "The wastebasket is empty." : "Retired notes, most recently retired first (their versions: /pi-context notes versions <address>):"],
    rows.slice(0, limit).map((row) => `- ${shownName(row.address)} · ${formatBytes(row.bytes)} · retired ${formatAge(row.updatedMs, now)}`),
    (shown) => [shown < rows.length ? `${rows.length - shown} more retired notes not shown; narrow with home or pattern.` : "End of wastebasket."]
  )
  return ok(fitted.text, { count: fitted.shown, wastebasket: true })
})

const hitLine = (hit: SearchHit): string => `- ${shownName(hit.address)}:${hit.line} (offset ${hit.offset}): ${hit.text}`

const searchCursorAfter = (hit: SearchHit): string => {
  const parsed = splitFormattedAddress(hit.address)
  return encodeSearchCursor({ h: homeOrder(parsed.home), p: parsed.path, l: hit.line })
}

const notesSearch = Effect.fn("tools.notes_search")(function*(params: unknown) {
  const decoded = yield* decodeParams(SearchParams, ToolName.notesSearch)(params)
  const home = yield* decodeHome(decoded.home)
  const limit = pageLimit(decoded.limit, searchLimit)
  const result = yield* (yield* NotesHomes).search({ query: decoded.query, regex: decoded.regex, home, cursor: decoded.cursor, limit })
  const fitted = fitLines(
    [result.hits.length === 0 ? "No matching lines." : "Matching lines (address:line, offset for notes_read):"],
    result.hits.map(hitLine),
    (shown) => {
      const last = result.hits[shown - 1]
      const cursor = shown < result.hits.length && last !== undefined ? searchCursorAfter(last) : result.nextCursor
      return [
        ...unavailableLine(result.unavailable, ToolName.notesSearch),
        ...(result.unreadable.length === 0 ? [] : [`Could not read (not searched): ${result.unreadable.slice(0, 10).map((address) => echo(address)).join(", ")}.`]),
        ...(result.stoppedEarly && shown === result.hits.length
          ? ["The search stopped on its time budget before reaching the end; more lines may match."]
          : []),
        cursor === undefined ? "End of results." : `More results: ${continuationCall(ToolName.notesSearch, decoded, { cursor })}.`
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
} as const satisfies Record<string, (params: unknown) => Effect.Effect<ToolOutcome, never, NotesHomes | PiSession | Thresholds>>

