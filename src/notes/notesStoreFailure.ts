import type { InvalidPattern } from "../kernel/patterns.ts"
import { echo, failed, type ToolOutcome } from "../kernel/toolOutcome.ts"
import type {
  AmbiguousEdit,
  InvalidAddress,
  InvalidNoteRequest,
  NoMatch,
  NoteLocked,
  NoteNotFound,
  NotesIoError,
  NoteTooLarge
} from "./NotesStore.ts"
import { shownName } from "../kernel/names.ts"

/** What the notes store can fail with. */
export type StoreFailure =
  | InvalidAddress
  | NoteNotFound
  | NoteTooLarge
  | NoteLocked
  | AmbiguousEdit
  | NoMatch
  | InvalidNoteRequest
  | InvalidPattern
  | NotesIoError

/** Every store failure as a tool error with a stable code and a sentence the model can act on. */
export const describeStoreFailure = (error: StoreFailure): ToolOutcome => {
  switch (error._tag) {
    case "InvalidAddress":
      return failed(error.code ?? "invalid_address", `"${echo(error.address)}": ${error.reason}.`)
    case "NoteNotFound":
      return failed("not_found", `there is no note at ${shownName(error.address)}; notes_list shows the existing notes.`)
    case "NoteTooLarge":
      return error.existing === true
        ? failed("too_large", `${shownName(error.address)} is ${error.bytes} bytes on disk, over the ${error.limit}-byte limit for notes the store edits. Read it by offset with notes_read, write its parts as smaller notes with notes_write, then replace it with notes_write.`)
        : failed("too_large", `${shownName(error.address)} would be ${error.bytes} bytes; the limit is ${error.limit} bytes. Split it into smaller notes.`)
    case "NoteLocked":
      return failed("locked", `${shownName(error.address)} is locked by another writer (waited ${error.waitedMs} ms); try again in a moment. A lock that a crashed writer left is taken over within 30 s.`)
    case "AmbiguousEdit":
      return failed("ambiguous_edit", `${shownName(error.address)}: ${error.message}`)
    case "NoMatch":
      return failed("no_match", `${shownName(error.address)}: ${error.message}`)
    case "InvalidNoteRequest":
      return failed("invalid_argument", error.message)
    case "InvalidPattern":
      return failed("bad_regex", error.message)
    case "NotesIoError":
      return error.permanent
        ? failed("io_permanent", `${error.reason}. Retrying will not help: ${error.action}.`)
        : failed("io_error", `${error.reason}. Try again; if it keeps failing, tell the user.`)
  }
}
