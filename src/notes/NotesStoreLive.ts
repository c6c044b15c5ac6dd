import { Clock, Effect, FileSystem, Layer, Option, Path, PlatformError, Result } from "effect"
import { applyEdits, describeEditRefusal, type TextEdit } from "./edits.ts"
import { parseNote, serializeNote, stampFrontmatter } from "./frontmatter.ts"
import { homeLocation, type NotesIdentity, projectKeyOf, sessionSegment } from "./identity.ts"
import { addressMatcher, decodeListCursor, pageMatching } from "./paging.ts"
import type { HomeSnapshot } from "./snapshot.ts"
import { textWindow } from "../kernel/textWindow.ts"
import {
  AmbiguousEdit,
  InvalidNoteRequest,
  type ListRequest,
  NoMatch,
  NoteByteLimit,
  NoteNotFound,
  NotesStore,
  NoteTooLarge,
  type PageRequest,
  type SearchRequest,
  type WriteOptions
} from "./NotesStore.ts"
import { CurrentScanDeadline } from "../kernel/CurrentScanDeadline.ts"
import { type DiskOps, isNotFound, walkNotes, writeAtomically } from "./disk.ts"
import { makeFolders } from "./folders.ts"
import { makeHomeCache } from "./homeCache.ts"
import { makeLocator, misplacedError, type Located } from "./locate.ts"
import { makeNoteLocks } from "./lockFile.ts"
import { withTitles } from "./pocket.ts"
import { placeUnder } from "./contain.ts"
import { findProjectRoot } from "./project.ts"
import { readAllNotes, saveTidyReport, withTidyLock } from "./maintenance.ts"
import { readLargeFrontmatter, readLargePage } from "./largeNote.ts"
import { searchNotes } from "./noteSearch.ts"
import { allHomes, copyToWastebasket, listWastebasket, moveToWastebasket, placeRetired, prepareWastebasket, retiredFile } from "./wastebasket.ts"
import { notesWritability } from "./writable.ts"
import * as Platform from "../kernel/platform.ts"
import { type Home, Homes } from "../kernel/homes.ts"

const encoder = new TextEncoder()

export const layerWithoutDependencies = Layer.effect(
  NotesStore,
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const ops: DiskOps = { fs, path }
    // Watched per home; its watchers close with the layer's scope (the runtime is disposed on session_shutdown).
    const cache = yield* makeHomeCache(ops)
    const { withNoteLocks } = makeNoteLocks(ops)

    const { homeDir, locate, checkHome, ensureContained, ensureReadable, ioErrorAt } = makeLocator(ops)

    /** A failed read of the note: gone, or the file system's error at its address. */
    const readFailed = (located: Located) => (error: PlatformError.PlatformError) =>
      isNotFound(error) ? new NoteNotFound({ address: located.shown }) : ioErrorAt(located, "read")(error)

    /** The note's kind and size; a folder or anything else at its name is no note. */
    const statNote = Effect.fnUntraced(function*(located: Located) {
      yield* ensureReadable(located)
      const info = yield* fs.stat(located.file).pipe(
        Effect.mapError(readFailed(located))
      )
      if (info.type !== "File") return yield* new NoteNotFound({ address: located.shown })
      return Number(info.size)
    })

    const readWhole = (located: Located) =>
      fs.readFileString(located.file).pipe(
        Effect.mapError(readFailed(located))
      )

    /** The whole note, refused (and named as such) when it is over the limit already on disk. */
    const readExisting = Effect.fnUntraced(function*(located: Located) {
      const size = yield* statNote(located)
      if (size > NoteByteLimit) return yield* new NoteTooLarge({ address: located.shown, bytes: size, limit: NoteByteLimit, existing: true })
      return { text: yield* readWhole(located), bytes: size }
    })

    /** The frontmatter a replacing write keeps; a note over the limit gives its head's. */
    const previousFrontmatter = (located: Located) =>
      Effect.gen(function*() {
        const size = yield* statNote(located)
        if (size <= NoteByteLimit) return Option.some(parseNote(yield* readWhole(located)).frontmatter)
        return Option.some(yield* readLargeFrontmatter(ops, located.file).pipe(Effect.mapError(ioErrorAt(located, "read"))))
      }).pipe(Effect.catchTag("NoteNotFound", () => Effect.succeedNone))

    const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

    const encodeNote = (located: Located, text: string): Effect.Effect<Uint8Array, NoteTooLarge> => {
      const data = encoder.encode(text)
      return data.length > NoteByteLimit
        ? Effect.fail(new NoteTooLarge({ address: located.shown, bytes: data.length, limit: NoteByteLimit }))
        : Effect.succeed(data)
    }

    const prepareDirectory = Effect.fnUntraced(function*(located: Located) {
      yield* ensureContained(located)
      const dir = path.dirname(located.file)
      yield* makeFolders(ops, dir).pipe(Effect.mapError(ioErrorAt(located, "create the folder of")))
      // Re-check: a directory created through a symlinked parent would show up now.
      yield* ensureContained(located)
    })

    /** Runs `use` under the locks of `notes`, then tells the cache of each; a file-system failure is told of `at`. */
    const lockedChange = <A, E>(notes: ReadonlyArray<Located>, at: Located, operation: string, use: Effect.Effect<A, E>) =>
      withNoteLocks(notes.map((note) => note.file), at.shown, use).pipe(
        // The next boot sees the write without waiting for a watcher, whatever became of it.
        Effect.ensuring(Effect.sync(() => notes.forEach((note) => cache.changed(note.homeDir, note.address.path)))),
        Effect.catchIf(PlatformError.isPlatformError, (error) => Effect.fail(ioErrorAt(at, operation)(error)))
      )

    const read = Effect.fn("NotesStore.read")(function*(identity: NotesIdentity, raw: string) {
      const located = yield* locate(identity, raw, "read")
      const { text, bytes } = yield* readExisting(located)
      const note = parseNote(text)
      return { address: located.shown, body: note.body, bytes, created: note.frontmatter.created, updated: note.frontmatter.updated }
    })

    const readPage = Effect.fn("NotesStore.readPage")(function*(identity: NotesIdentity, raw: string, page: PageRequest) {
      const located = yield* locate(identity, raw, "read")
      const bytes = yield* statNote(located)
      if (bytes <= NoteByteLimit) {
        const note = parseNote(yield* readWhole(located))
        return { address: located.shown, window: textWindow(note.body, page.offset, page.limit, page.maxBytes), bytes, updated: note.frontmatter.updated }
      }
      const large = yield* readLargePage(ops, located.file, page).pipe(
        Effect.mapError(readFailed(located))
      )
      return { address: located.shown, window: large.window, bytes, updated: large.frontmatter.updated }
    })

    const write = Effect.fn("NotesStore.write")(function*(identity: NotesIdentity, raw: string, body: string, options?: WriteOptions) {
      const located = yield* locate(identity, raw)
      yield* encodeNote(located, body)
      yield* prepareDirectory(located)
      return yield* lockedChange([located], located, "write", Effect.gen(function*() {
        if (options?.onlyNew === true) {
          const there = yield* fs.lstat(located.file).pipe(
            Effect.as(true),
            Effect.catchIf(isNotFound, () => Effect.succeed(false)),
            Effect.mapError(ioErrorAt(located, "check"))
          )
          if (there) {
            return yield* new InvalidNoteRequest({
              address: located.shown,
              message: `${located.shown} appeared while the write was on its way, so it keeps its text; call again to replace it (with the user's OK where the home is protected)`
            })
          }
        }
        const previous = yield* previousFrontmatter(located)
        const frontmatter = stampFrontmatter(Option.getOrUndefined(previous), yield* nowIso, `session:${identity.sessionId}`)
        const data = yield* encodeNote(located, serializeNote({ frontmatter, body }))
        yield* writeAtomically(ops, located.file, data)
        return { address: located.shown, created: Option.isNone(previous), bytes: data.length }
      }))
    })

    const update = Effect.fn("NotesStore.update")(function*(
      identity: NotesIdentity,
      raw: string,
      edits: ReadonlyArray<TextEdit>,
      renameTo?: string
    ) {
      const source = yield* locate(identity, raw)
      const target = renameTo === undefined ? undefined : yield* locate(identity, renameTo)
      const renaming = target !== undefined && target.file !== source.file
      if (edits.length === 0 && !renaming) {
        return yield* new InvalidNoteRequest({ address: source.shown, message: "give at least one edit or a rename_to different from the address" })
      }
      yield* ensureContained(source)
      if (renaming) yield* prepareDirectory(target)
      return yield* lockedChange(renaming ? [source, target] : [source], source, "update", Effect.gen(function*() {
        const current = yield* readExisting(source)
        const note = parseNote(current.text)
        const edited = applyEdits(note.body, edits)
        if (Result.isFailure(edited)) {
          const refusal = edited.failure
          const message = describeEditRefusal(refusal, edits.length)
          switch (refusal._tag) {
            case "NoMatch":
              return yield* new NoMatch({ address: source.shown, editIndex: refusal.editIndex, message })
            case "Ambiguous":
              return yield* new AmbiguousEdit({ address: source.shown, editIndex: refusal.editIndex, lines: refusal.lines, message })
            case "Overlap":
              return yield* new AmbiguousEdit({ address: source.shown, editIndex: refusal.editIndex, lines: [refusal.line], message })
            case "EmptyOldText":
              return yield* new InvalidNoteRequest({ address: source.shown, message })
          }
        }
        const destination = renaming ? target : source
        if (renaming) {
          const occupied = yield* fs.exists(target.file).pipe(Effect.mapError(ioErrorAt(target, "check")))
          if (occupied) {
            return yield* new InvalidNoteRequest({
              address: target.shown,
              message: `cannot rename to ${target.shown}: a note already exists there; pick another name or update that note`
            })
          }
        }
        const frontmatter = stampFrontmatter(note.frontmatter, yield* nowIso, `session:${identity.sessionId}`)
        const data = yield* encodeNote(destination, serializeNote({ frontmatter, body: edited.success }))
        yield* writeAtomically(ops, destination.file, data)
        if (renaming) yield* fs.remove(source.file)
        return {
          address: destination.shown,
          renamedFrom: renaming ? source.shown : undefined,
          editsApplied: edits.length,
          bytes: data.length
        }
      }))
    })

    const list = Effect.fn("NotesStore.list")(function*(identity: NotesIdentity, request: ListRequest) {
      const cursor = request.cursor === undefined ? Option.none() : decodeListCursor(request.cursor)
      if (request.cursor !== undefined && Option.isNone(cursor)) {
        return yield* new InvalidNoteRequest({ address: "", message: "the cursor is not one notes_list returned; start again without a cursor" })
      }
      yield* cache.settle
      const [rows, unavailable] = yield* Effect.partition(allHomes(request.home), (home) => Effect.andThen(checkHome(identity, home), cache.rows(home, homeDir(identity, home))), { concurrency: "unbounded" })
      const budget = (yield* CurrentScanDeadline)()
      const page = pageMatching(rows.flat(), Option.getOrUndefined(cursor), request.limit, addressMatcher(request.pattern), budget)
      const titled = yield* withTitles(ops, (home) => homeDir(identity, home), page.items)
      return { rows: titled, nextCursor: page.nextCursor, unavailable, stoppedEarly: page.stoppedEarly }
    })

    const search = Effect.fn("NotesStore.search")(function*(identity: NotesIdentity, request: SearchRequest) {
      const [homes, misplaced] = yield* Effect.partition(allHomes(request.home), (home) => Effect.as(checkHome(identity, home), { home, dir: homeDir(identity, home) }))
      const found = yield* searchNotes(ops, homes, request)
      return misplaced.length === 0 ? found : { ...found, unavailable: [...misplaced, ...found.unavailable] }
    })

    const snapshot = Effect.fn("NotesStore.snapshot")(function*(identity: NotesIdentity) {
      const takenAt = yield* Clock.currentTimeMillis
      yield* cache.settle
      const homes = yield* Effect.forEach(
        Homes,
        (home) =>
          checkHome(identity, home).pipe(
            Effect.andThen(cache.snapshot(home, homeDir(identity, home), homeLocation(identity, home))),
            Effect.catch((error): Effect.Effect<HomeSnapshot> =>
              Effect.succeed({ _tag: "Unavailable", home, location: homeLocation(identity, home), reason: error.reason })
            )
          ),
        { concurrency: "unbounded" }
      )
      return { takenAt, homes }
    })

    const copySessionHome = Effect.fn("NotesStore.copySessionHome")(function*(root: string, fromSessionId: string, toSessionId: string) {
      const from = path.join(root, "sessions", sessionSegment(fromSessionId))
      const to = path.join(root, "sessions", sessionSegment(toSessionId))
      if (from === to) return { copied: 0 }
      const sessionAt = (dir: string, relative: string) => ioErrorAt({ address: { home: "session", path: relative }, shown: relative, homeDir: dir }, "copy")
      // Neither the fork's home nor its parent's may lead out of the notes root: the copy would write, or bring in, what is outside.
      for (const [sessionId, dir, shown] of [[toSessionId, to, "the fork's notes"], [fromSessionId, from, "the parent session's notes"]] as const) {
        const placement = yield* placeUnder(ops, root, ["sessions", sessionSegment(sessionId)]).pipe(Effect.mapError(sessionAt(dir, shown)))
        if (placement._tag !== "Inside") {
          return yield* misplacedError({ address: { home: "session", path: "" }, shown, homeDir: dir }, placement, "the notes root", "copy")
        }
      }
      const existing = yield* walkNotes(ops, to).pipe(Effect.mapError(sessionAt(to, "the fork's notes")))
      if (existing.length > 0) return { copied: 0 }
      const parentNotes = yield* walkNotes(ops, from).pipe(Effect.mapError(sessionAt(from, "the parent session's notes")))
      yield* Effect.forEach(parentNotes, (note) => {
        const destination = path.join(to, ...note.relative.split("/"))
        return makeFolders(ops, path.dirname(destination)).pipe(
          Effect.andThen(fs.readFile(note.absolute)),
          Effect.flatMap((data) => writeAtomically(ops, destination, data)),
          Effect.mapError(sessionAt(to, note.relative))
        )
      }, { concurrency: 8, discard: true }).pipe(Effect.ensuring(Effect.sync(() => cache.forget(to))))
      return { copied: parentNotes.length }
    })

    /**
     * Whether the note is there, from its file's lstat alone (the store's name
     * rules find the file): a note too large or unreadable to read still
     * exists. Only "no such file" is absent; anything else the file system
     * says is an error, never an answer.
     */
    const noteState = Effect.fn("NotesStore.noteState")(function*(identity: NotesIdentity, raw: string) {
      const located = yield* locate(identity, raw, "read")
      const info = yield* fs.lstat(located.file).pipe(
        Effect.map(Option.some),
        Effect.catchIf(isNotFound, () => Effect.succeedNone),
        Effect.mapError(ioErrorAt(located, "check"))
      )
      if (Option.isNone(info)) return { _tag: "Absent", address: located.shown } as const
      const bytes = Number(info.value.size)
      // Its text, for the user to see what changes: only a plain file within the limit, inside its home.
      const body = info.value.type !== "File" || bytes > NoteByteLimit ? undefined : yield* ensureReadable(located).pipe(
        Effect.andThen(readWhole(located)),
        Effect.map((text) => parseNote(text).body),
        Effect.orElseSucceed(() => undefined)
      )
      return { _tag: "Present", address: located.shown, bytes, body } as const
    })

    /** Where a note of `located` goes in its wastebasket, once that folder is made and checked to stay inside its root. */
    const wastebasketPlace = Effect.fnUntraced(function*(identity: NotesIdentity, located: Located, operation: string) {
      const binned = retiredFile(ops, identity, located.address.home, located.address.path)
      const binIsInside = placeRetired(ops, identity, located.address.home, located.address.path).pipe(
        Effect.mapError(ioErrorAt(located, operation)),
        Effect.flatMap(({ placement, belongsTo }) =>
          placement._tag === "Inside" ? Effect.void : Effect.fail(misplacedError(located, placement, belongsTo, operation))
        )
      )
      // A missing note is told as such, before its lock (whose folder may not exist) is taken.
      yield* statNote(located)
      yield* prepareWastebasket(ops, binned, binIsInside).pipe(
        Effect.mapError((error) => PlatformError.isPlatformError(error) ? ioErrorAt(located, operation)(error) : error)
      )
      return binned
    })

    const retire = Effect.fn("NotesStore.retire")(function*(identity: NotesIdentity, raw: string) {
      const located = yield* locate(identity, raw)
      const binned = yield* wastebasketPlace(identity, located, "retire")
      return yield* lockedChange([located], located, "retire", Effect.gen(function*() {
        // Only its size: a note over the write limit can be retired too.
        const bytes = yield* statNote(located)
        yield* moveToWastebasket(ops, located.file, binned, yield* Clock.currentTimeMillis)
        return { address: located.shown, bytes }
      }))
    })

    const keepCopy = Effect.fn("NotesStore.keepCopy")(function*(identity: NotesIdentity, raw: string) {
      const located = yield* locate(identity, raw, "read")
      const binned = yield* wastebasketPlace(identity, located, "keep a copy of")
      return yield* lockedChange([located], located, "keep a copy of", Effect.gen(function*() {
        yield* statNote(located)
        yield* copyToWastebasket(ops, located.file, binned, yield* Clock.currentTimeMillis)
        const base = identity.projectDir !== undefined && located.address.home === "project" ? path.dirname(path.dirname(identity.projectDir)) : identity.root
        return { address: located.shown, location: path.relative(base, binned).split(path.sep).join("/") }
      }))
    })

    const listRetired = (identity: NotesIdentity, home: Home | undefined) => listWastebasket(ops, identity, allHomes(home))

    const projectRoot = (cwd: string) => Effect.sync(() => findProjectRoot(cwd))

    const projectKey = (cwd: string) => Effect.sync(() => projectKeyOf(findProjectRoot(cwd)))

    const onDisk = Platform.withPlatform(fs, path)

    return NotesStore.of({
      read,
      readPage,
      noteState,
      keepCopy,
      write,
      update,
      retire,
      listRetired,
      list,
      search,
      snapshot,
      copySessionHome,
      projectRoot,
      projectKey,
      writability: (identity) => onDisk(notesWritability(identity)),
      readAll: (identity) => readAllNotes(ops, identity),
      withTidyLock: (root, limitMs, use) => withTidyLock(ops, root, limitMs, use),
      saveTidyReport: (root, name, text) => saveTidyReport(ops, root, name, text)
    })
  })
)

/** The notes store on Node's file system. */
export const layer = layerWithoutDependencies.pipe(Layer.provide(Platform.layer))

/** For tests on real temp folders: the store, with Node's file system and paths kept in the context. */
export const layerTest = layerWithoutDependencies.pipe(Layer.provideMerge(Platform.layer))
