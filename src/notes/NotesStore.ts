import { Context, type Effect, Schema } from "effect"
import type { TextEdit } from "./edits.ts"
import type { NotesIdentity } from "./identity.ts"
import type { LintNote } from "./lint.ts"
import type { NoteRow, NotesSnapshot } from "./snapshot.ts"
import type { InvalidPattern } from "../kernel/patterns.ts"
import type { TextWindow } from "../kernel/textWindow.ts"
import { type Home, Homes } from "../kernel/homes.ts"

/** A serialized note (frontmatter and body) may not exceed this many UTF-8 bytes. */
export const NoteByteLimit = 1_000_000

const HomeSchema = Schema.Literals(Homes)

/** A real read failure of one home (not an absent directory, which is an empty home). */
export class NotesHomeUnavailable extends Schema.TaggedError<NotesHomeUnavailable>()("NotesHomeUnavailable", {
  home: HomeSchema,
  reason: Schema.String,
  /** What fixes it, when trying again cannot (a link that leads out of the home's root). */
  fix: Schema.optionalKey(Schema.String)
}) {}

export class NoteNotFound extends Schema.TaggedError<NoteNotFound>()("NoteNotFound", {
  address: Schema.String
}) {}

export class InvalidAddress extends Schema.TaggedError<InvalidAddress>()("InvalidAddress", {
  address: Schema.String,
  reason: Schema.String,
  /** `name_too_long` when a name is over `SegmentByteLimit`; otherwise absent. */
  code: Schema.optionalKey(Schema.Literals(["invalid_address", "name_too_long"]))
}) {}

export class NoteTooLarge extends Schema.TaggedError<NoteTooLarge>()("NoteTooLarge", {
  address: Schema.String,
  bytes: Schema.Number,
  limit: Schema.Number,
  /** The note on disk is already over the limit (written by hand), as opposed to a write that would make it so. */
  existing: Schema.optionalKey(Schema.Boolean)
}) {}

/** Another writer held the note's lock for longer than the store waits. */
export class NoteLocked extends Schema.TaggedError<NoteLocked>()("NoteLocked", {
  address: Schema.String,
  waitedMs: Schema.Number
}) {}

/** An edit's `oldText` matches more than once; `message` names the lines. */
export class AmbiguousEdit extends Schema.TaggedError<AmbiguousEdit>()("AmbiguousEdit", {
  address: Schema.String,
  editIndex: Schema.Number,
  lines: Schema.Array(Schema.Number),
  message: Schema.String
}) {}

export class NoMatch extends Schema.TaggedError<NoMatch>()("NoMatch", {
  address: Schema.String,
  editIndex: Schema.Number,
  message: Schema.String
}) {}

/** A request the store cannot carry out as asked (an empty edit, a rename onto an existing note). */
export class InvalidNoteRequest extends Schema.TaggedError<InvalidNoteRequest>()("InvalidNoteRequest", {
  address: Schema.String,
  message: Schema.String
}) {}

/**
 * A file-system failure on one note, named by its address and home, never
 * by a path of the user's machine. `permanent` says whether trying again
 * can help; `reason` is the sentence a person or a model reads.
 */
export class NotesIoError extends Schema.TaggedError<NotesIoError>()("NotesIoError", {
  address: Schema.String,
  home: HomeSchema,
  errno: Schema.String,
  permanent: Schema.Boolean,
  reason: Schema.String,
  action: Schema.String
}) {}

export interface NoteContent {
  readonly address: string
  readonly body: string
  /** Size of the whole file in UTF-8 bytes. */
  readonly bytes: number
  readonly created: string | undefined
  readonly updated: string | undefined
}

/** One window of a note's body, read by offset whatever the note's size. */
export interface NotePage {
  readonly address: string
  readonly window: TextWindow
  /** Size of the whole file in UTF-8 bytes. */
  readonly bytes: number
  readonly updated: string | undefined
}

export interface PageRequest {
  /** Code points; negative counts from the end. */
  readonly offset: number
  readonly limit: number
  /** UTF-8 bytes the window's text may take. */
  readonly maxBytes: number
}

export interface WriteResult {
  readonly address: string
  readonly created: boolean
  readonly bytes: number
}

export interface WriteOptions {
  readonly onlyNew?: boolean
}

export interface UpdateResult {
  readonly address: string
  readonly renamedFrom: string | undefined
  readonly editsApplied: number
  readonly bytes: number
}

export interface ListRequest {
  readonly home?: Home | undefined
  readonly pattern?: string | undefined
  readonly cursor?: string | undefined
  readonly limit: number
}

export interface ListResult {
  readonly rows: ReadonlyArray<NoteRow>
  readonly nextCursor: string | undefined
  readonly unavailable: ReadonlyArray<NotesHomeUnavailable>
  /** The listing stopped on the call's time budget; `nextCursor` continues it. */
  readonly stoppedEarly: boolean
}

export interface SearchRequest {
  readonly query: string
  readonly regex?: boolean | undefined
  readonly home?: Home | undefined
  readonly cursor?: string | undefined
  readonly limit: number
}

export interface SearchHit {
  readonly address: string
  /** 1-based line number in the body. */
  readonly line: number
  /** Code-point offset of the line's start in the body, for `notes_read`. */
  readonly offset: number
  readonly text: string
}

export interface SearchResult {
  readonly hits: ReadonlyArray<SearchHit>
  /** Notes that could not be read and so were not searched. */
  readonly unreadable: ReadonlyArray<string>
  readonly nextCursor: string | undefined
  readonly unavailable: ReadonlyArray<NotesHomeUnavailable>
  /** The search stopped on the call's time budget; `nextCursor` continues it. */
  readonly stoppedEarly: boolean
}

/**
 * Whether a note is there, as the file system says (nothing is read to
 * decide it): anything at the note's name counts, a folder or a link too.
 * `body` is its text when it could be read whole (up to the limit).
 */
export type NoteState =
  | { readonly _tag: "Absent"; readonly address: string }
  | { readonly _tag: "Present"; readonly address: string; readonly bytes: number; readonly body: string | undefined }

/** Where a copy of a note's text was kept: its place relative to the notes root (or the project, for in-project notes). */
export interface KeptCopy {
  readonly address: string
  readonly location: string
}

export interface RetireResult {
  readonly address: string
  readonly bytes: number
}

export type ReadError = InvalidAddress | NoteNotFound | NoteTooLarge | NotesIoError
export type WriteError = InvalidAddress | NoteTooLarge | NoteLocked | NotesIoError
export type UpdateError = WriteError | NoteNotFound | AmbiguousEdit | NoMatch | InvalidNoteRequest

/** The notes root's tidy lock could not be taken: held by another pass, or something else is at its name. */
export class TidyLockUnavailable extends Schema.TaggedError<TidyLockUnavailable>()("TidyLockUnavailable", {
  message: Schema.String
}) {}

/** Whether notes could be created under a folder, and if not, which existing path stops them. */
export type Writability =
  | { readonly _tag: "Writable" }
  | {
    readonly _tag: "Blocked"
    readonly at: string
    readonly problem: "not-a-folder" | "read-only" | "not-accessible" | "link-outside" | "dangling-link"
    /** For a link: the root it leads out of ("the notes root", "the project"). */
    readonly root?: string
  }

export interface HomeWritability {
  readonly home: Home
  /** Relative to the notes root (`projects/<key>`), or `.pi/notes in the project`. */
  readonly location: string
  readonly writability: Writability
}

export interface NotesWritability {
  readonly root: string
  readonly rootWritability: Writability
  readonly homes: ReadonlyArray<HomeWritability>
}

/** Five note homes on disk, of whichever identity a call names (NotesHomes names this session\'s). */
export class NotesStore extends Context.Service<NotesStore, {
  /** The whole note, up to `NoteByteLimit`. */
  readonly read: (identity: NotesIdentity, address: string) => Effect.Effect<NoteContent, ReadError>
  /** A window of the body, for a note of any size (one over the limit is read in chunks). */
  readonly readPage: (identity: NotesIdentity, address: string, page: PageRequest) => Effect.Effect<NotePage, ReadError>
  /**
   * Creates or replaces the note's body; `created` says which. With
   * `onlyNew`, a note found there under the lock is left as it is (refused):
   * the write was allowed as a new note.
   */
  readonly write: (identity: NotesIdentity, address: string, body: string, options?: WriteOptions) => Effect.Effect<WriteResult, WriteError | InvalidNoteRequest>
  /** Exact-text edits and/or a rename, all or nothing, under the note's lock. */
  readonly update: (
    identity: NotesIdentity,
    address: string,
    edits: ReadonlyArray<TextEdit>,
    renameTo?: string
  ) => Effect.Effect<UpdateResult, UpdateError>
  /** Whether the note exists (its file looked up, never read for it), and its text when it can be read whole. */
  readonly noteState: (identity: NotesIdentity, address: string) => Effect.Effect<NoteState, InvalidAddress | NotesIoError>
  /** Copies the note's file, as it is, into its home's wastebasket (an earlier copy there moves aside): a version kept without git. */
  readonly keepCopy: (identity: NotesIdentity, address: string) => Effect.Effect<KeptCopy, WriteError | NoteNotFound>
  /** Moves a note to its home's wastebasket: out of the boot and listings, kept in the history. */
  readonly retire: (identity: NotesIdentity, address: string) => Effect.Effect<RetireResult, WriteError | NoteNotFound>
  /** The wastebasket of one home or all five, most recently retired first. */
  readonly listRetired: (identity: NotesIdentity, home: Home | undefined) => Effect.Effect<ReadonlyArray<NoteRow>, NotesIoError>
  /** Most recent first; a failing home is reported, never fatal. */
  readonly list: (identity: NotesIdentity, request: ListRequest) => Effect.Effect<ListResult, InvalidNoteRequest>
  readonly search: (identity: NotesIdentity, request: SearchRequest) => Effect.Effect<SearchResult, InvalidNoteRequest | InvalidPattern>
  /** All five homes read once into a closed value; per-home failures are values. */
  readonly snapshot: (identity: NotesIdentity) => Effect.Effect<NotesSnapshot>
  /** Copies a parent session's notes into a fork's session home when that home is still empty. */
  readonly copySessionHome: (
    root: string,
    fromSessionId: string,
    toSessionId: string
  ) => Effect.Effect<{ readonly copied: number }, NotesIoError>
  /** The git root containing `cwd` (the main checkout for a linked worktree), else `cwd`. */
  readonly projectRoot: (cwd: string) => Effect.Effect<string>
  /** `<name>-<hash>` of the git root containing `cwd` (the main checkout for a linked worktree), else of `cwd`. */
  readonly projectKey: (cwd: string) => Effect.Effect<string>
  /** Whether notes can be written: the notes root, then each of the five homes. Writes nothing. */
  readonly writability: (identity: NotesIdentity) => Effect.Effect<NotesWritability>
  /** Every readable note of the five homes, with its body; an unreadable home or note is left out (doctor reports homes). */
  readonly readAll: (identity: NotesIdentity) => Effect.Effect<ReadonlyArray<LintNote>>
  /**
   * Runs `use` holding `<root>/.tidy.lock`; `use` gets the line to report
   * when a stale lock was taken over.
   */
  readonly withTidyLock: <A, E, R>(
    root: string,
    limitMs: number,
    use: (takenOver: string | undefined) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | TidyLockUnavailable, R>
  /** Writes a tidy report under `<root>/tidy-reports/`, never through a link out of the root; why not, when it was not saved. */
  readonly saveTidyReport: (root: string, name: string, text: string) => Effect.Effect<string | undefined>
}>()("pi-context/NotesStore") {}
