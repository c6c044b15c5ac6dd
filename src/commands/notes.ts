import { Effect, Option } from "effect"
import { formatAge, formatBytes } from "../domain/boot.ts"
import { type RawEntry, isMarkerEntry } from "../domain/entries.ts"
import type { NotesOverview } from "../domain/notes/overviewView.ts"
import { CustomType } from "../domain/protocol.ts"
import { NotesStore } from "../services/NotesStore.ts"
import { PiSession } from "../services/PiSession.ts"
import { Window } from "../services/Window.ts"
import { notesIdentity } from "../tools/notes.ts"

/** How many notes the overview lists, newest first. */
export const OverviewRows = 30

/** `/pi-context notes`: the notes root, the count per home, and the newest notes with title, size and age. */
export const notesOverview = Effect.gen(function*() {
  const notes = yield* NotesStore
  const identity = yield* notesIdentity()
  const snapshot = yield* notes.snapshot(identity)
  const listed = yield* notes.list(identity, { limit: OverviewRows }).pipe(
    Effect.orElseSucceed(() => ({ rows: [], nextCursor: undefined, unavailable: [] }))
  )
  const now = snapshot.takenAt
  const total = snapshot.homes.reduce((sum, home) => sum + (home._tag === "Available" ? home.noteCount : 0), 0)
  const overview: NotesOverview = {
    root: identity.root,
    homes: snapshot.homes.map((home) =>
      home._tag === "Available" ? { home: home.home, count: home.noteCount } : { home: home.home, count: null, reason: home.reason }
    ),
    rows: listed.rows.map((row) => ({ address: row.address, title: row.title, size: formatBytes(row.bytes), age: formatAge(row.updatedMs, now) })),
    more: Math.max(0, total - listed.rows.length)
  }
  return overview
})

/** One note's text, or why it cannot be read. */
export const noteText = (address: string) =>
  Effect.gen(function*() {
    const notes = yield* NotesStore
    const identity = yield* notesIdentity()
    return yield* notes.read(identity, address).pipe(
      Effect.map((note) => ({ ok: true as const, address: note.address, body: note.body, size: formatBytes(note.bytes) })),
      Effect.catch((error) => Effect.succeed({ ok: false as const, address, body: `pi-context: cannot read ${address}: ${errorText(error)}`, size: "" }))
    )
  })

/** Writes a note the user edited in Pi's editor. */
export const saveNote = (address: string, body: string) =>
  Effect.gen(function*() {
    const notes = yield* NotesStore
    const identity = yield* notesIdentity()
    return yield* notes.write(identity, address, body).pipe(
      Effect.map((written) => `pi-context: saved ${written.address} (${formatBytes(written.bytes)}).`),
      Effect.catch((error) => Effect.succeed(`pi-context: could not save ${address}: ${errorText(error)}`))
    )
  })

const errorText = (error: unknown): string =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? (error as { message: string }).message
    : String(error)

const bootOf = (entry: RawEntry, windowId: string): string | undefined => {
  if (entry.type !== "custom_message" || entry.customType !== CustomType.boot) return undefined
  const details = entry.details as { windowId?: unknown } | undefined
  return details?.windowId === windowId && typeof entry.content === "string" ? entry.content : undefined
}

/** "What the model got": the current window's boot, as it was written into the session and sent. */
export const currentBoot = Effect.gen(function*() {
  const session = yield* PiSession
  const window = yield* (yield* Window).current
  const tail = yield* session.branchTail(isMarkerEntry)
  const text = Option.fromNullishOr(tail.map((entry) => bootOf(entry, window.id)).find((boot) => boot !== undefined))
  return { ordinal: window.ordinal, text: Option.getOrUndefined(text) }
})
