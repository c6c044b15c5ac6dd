/** What a snapshot shows of a home: its most recent notes (the pocket), each with its title. */
import { Effect, type PlatformError } from "effect"
import { noteTitle, parseNote } from "./frontmatter.ts"
import { compareRecentFirst } from "./paging.ts"
import type { NoteRow } from "./snapshot.ts"
import { type DiskOps, readNoteHead, readText } from "./disk.ts"
import type { Home } from "../kernel/homes.ts"

/** How many recent notes per home a snapshot carries; the boot shows fewer. */
export const PocketDepth = 12
const TitleHeadBytes = 4096

/** The note's title; a large note is read only as far as its first bytes (the whole file only for a long frontmatter). */
export const readTitleOrFail = (file: string, bytes: number): Effect.Effect<string, PlatformError.PlatformError> => {
  const whole = Effect.map(readText(file), (text) => noteTitle(parseNote(text).body))
  if (bytes <= TitleHeadBytes * 4) return whole
  return Effect.flatMap(readNoteHead(file, TitleHeadBytes), (text) => {
    const note = parseNote(text)
    return text.startsWith("---") && note.body === text ? whole : Effect.succeed(noteTitle(note.body))
  })
}

/** Reads the title of each note that has none yet; one that cannot be read shows empty this time and is tried again next time. */
export const readMissingTitles = (
  notes: ReadonlyArray<{ readonly relative: string; readonly bytes: number; title: string | undefined }>,
  pathOf: (relative: string) => string
): Effect.Effect<void> =>
  Effect.forEach(
    notes.filter((note) => note.title === undefined),
    (note) => readTitleOrFail(pathOf(note.relative), note.bytes).pipe(Effect.match({ onFailure: () => {}, onSuccess: (title) => void (note.title = title) })),
    { discard: true }
  )

/** The note's title, or "" when it cannot be read. */
const readTitle = (file: string, bytes: number): Effect.Effect<string> => readTitleOrFail(file, bytes).pipe(Effect.orElseSucceed(() => ""))

export const withTitles = (ops: DiskOps, dirOf: (home: Home) => string, rows: ReadonlyArray<NoteRow>) =>
  Effect.forEach(rows, (row) => {
    const relative = row.home === "session" ? row.address : row.address.slice(row.address.indexOf("/") + 1)
    return Effect.map(readTitle(ops.path.join(dirOf(row.home), ...relative.split("/")), row.bytes), (title) => ({ ...row, title }))
  })

type RecentOrder = Pick<NoteRow, "updatedMs" | "address">

/** Keeps `top` the `PocketDepth` most recent notes, newest first, as notes arrive in any order. */
export const insertRecent = <A extends RecentOrder>(top: Array<A>, note: A): void => {
  if (top.length === PocketDepth && compareRecentFirst(note, top[PocketDepth - 1]!) >= 0) return
  let at = top.length
  while (at > 0 && compareRecentFirst(note, top[at - 1]!) < 0) at--
  top.splice(at, 0, note)
  if (top.length > PocketDepth) top.pop()
}
