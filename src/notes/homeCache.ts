import type { FSWatcher } from "node:fs"
import { Effect, type PlatformError, type Scope, Semaphore } from "effect"
import { isGitFolder } from "./address.ts"
import { parseNote } from "./frontmatter.ts"
import { hasUnshowableCharacter } from "../kernel/names.ts"
import type { HomeSnapshot, NoteRow } from "./snapshot.ts"
import { NoteByteLimit, NotesHomeUnavailable } from "./NotesStore.ts"
import {
  type DiskOps,
  readText,
  statPaths,
  walkNotes,
  turnOfEventLoop,
  watchableFileSystem,
  watchFolder
} from "./disk.ts"
import { insertRecent, readMissingTitles } from "./pocket.ts"
import { homeUnavailable } from "./errors.ts"
import { formatAddress, type Home } from "../kernel/homes.ts"

/** How many homes keep their watchers at once; the least recently read is dropped first. */
const MaxCachedHomes = 16
/** A home with more folders than this is walked on every read instead of watched. */
const MaxWatchedFolders = 2_000
/** More pending changes than this and one walk of the whole home is cheaper. */
const MaxDirtyPaths = 4_096
const MapPath = "MAP.md"

interface CachedNote {
  readonly relative: string
  readonly address: string
  readonly bytes: number
  readonly updatedMs: number
  /** Read when the note first enters a pocket; a change to the note makes a new entry. */
  title: string | undefined
  /** MAP.md and this session's newest note only: its body, read once per change. */
  body: string | undefined
}

interface HomeState {
  readonly home: Home
  readonly dir: string
  readonly lock: Semaphore.Semaphore
  notes: Map<string, CachedNote>
  /** The watchers, by the folder they are on (`""` is the home itself): every folder on Linux, the home alone elsewhere. */
  readonly watchers: Map<string, FSWatcher>
  /** Every folder walked since a watcher covered it: only under these can the cache hold notes. */
  readonly folders: Set<string>
  /** Paths inside the home that changed since they were last looked at. */
  readonly dirty: Set<string>
  /** Files and folders left out of the home: their names hold a control or invisible character. */
  refused: Set<string>
  /**
   * The home folder the watchers were installed on. Set only after a full walk
   * that watched every folder; undefined means the next read walks the home.
   */
  root: { readonly dev: number; readonly ino: number } | undefined
  /** Bumped by every invalidation, so a walk that raced one does not claim the home is watched. */
  epoch: number
  /** False once the system refused a watcher: every read of this home walks it. */
  watchable: boolean
  closed: boolean
  used: number
}

/**
 * Node's recursive watcher is native on macOS (FSEvents) and Windows; on Linux
 * it polls every file with `watchFile` (5 s apart), so there the cache
 * watches each folder itself (inotify). On Windows one watcher per folder
 * would also stop other programs from renaming or removing the folders.
 */
const RecursiveWatch = process.platform === "darwin" || process.platform === "win32"

/**
 * The store's view of its homes: every note's size and mtime, and the titles
 * of the notes that reached a pocket, kept current by watchers (see
 * `RecursiveWatch`). A read re-stats only the paths the watchers (or the store's own
 * writes) named since the last read and walks a folder only when it is new
 * or replaced. Without trustworthy watchers (home not there yet, a network
 * file system, the system out of watches, a watcher error, an overflowing
 * backlog, the home folder replaced) a read walks and stats the whole home,
 * as it would with no cache at all.
 */
export interface HomeCache {
  /** Lets the watchers report every change the kernel already queued (one turn of the event loop). */
  readonly settle: Effect.Effect<void>
  /** Every note of the home with size and mtime (no titles). */
  readonly rows: (home: Home, dir: string) => Effect.Effect<ReadonlyArray<NoteRow>, NotesHomeUnavailable>
  /** One home for the boot: its MAP body and its most recent notes, or why it could not be read. */
  readonly snapshot: (home: Home, dir: string, location: string) => Effect.Effect<HomeSnapshot, NotesHomeUnavailable>
  /** The store itself changed `relative` (a note, or a folder) in the home at `dir`. */
  readonly changed: (dir: string, relative: string) => void
  /** The store changed the home at `dir` wholesale: walk it on the next read. */
  readonly forget: (dir: string) => void
}

export const makeHomeCache = (ops: DiskOps): Effect.Effect<HomeCache, never, Scope.Scope> =>
  Effect.gen(function*() {
    const states = new Map<string, HomeState>()
    let clock = 0

    const closeWatchers = (state: HomeState): void => {
      for (const watcher of state.watchers.values()) watcher.close()
      state.watchers.clear()
      state.folders.clear()
    }

    /** The next read walks the whole home. */
    const invalidate = (state: HomeState): void => {
      state.root = undefined
      state.epoch++
      state.dirty.clear()
      closeWatchers(state)
    }

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const state of states.values()) {
          state.closed = true
          invalidate(state)
        }
        states.clear()
      })
    )

    const absolute = (state: HomeState, relative: string): string =>
      relative === "" ? state.dir : ops.path.join(state.dir, ...relative.split("/"))

    const markDirty = (state: HomeState, relative: string): void => {
      if (relative === "" || state.dirty.size >= MaxDirtyPaths) invalidate(state)
      else state.dirty.add(relative)
    }

    const onEvent = (state: HomeState, folder: string, folderAbsolute: string, name: string | undefined): void => {
      if (state.closed) return
      // No name: the platform lost track of what changed; walk the folder again.
      if (name === undefined) return markDirty(state, folder)
      // A recursive watcher names a path below its folder, with the platform's separator.
      const below = RecursiveWatch ? name.split(ops.path.sep).filter((part) => part !== "").join("/") : name
      if (below === "") return markDirty(state, folder)
      markDirty(state, folder === "" ? below : `${folder}/${below}`)
      // Linux names the watched folder itself when it is deleted, moved or re-permissioned.
      if (name === ops.path.basename(folderAbsolute)) markDirty(state, folder)
    }

    const watchBeforeRead = (state: HomeState) => (relative: string, folderAbsolute: string): void => {
      if (state.closed || !state.watchable) return
      if (RecursiveWatch && relative !== "") {
        // Covered by the home's watcher, if it is still there.
        if (state.watchers.has("")) state.folders.add(relative)
        return
      }
      state.watchers.get(relative)?.close()
      state.watchers.delete(relative)
      if (state.watchers.size >= MaxWatchedFolders) {
        state.watchable = false
        return invalidate(state)
      }
      const watcher = watchFolder(
        folderAbsolute,
        RecursiveWatch,
        (name) => onEvent(state, relative, folderAbsolute, name),
        () => invalidate(state)
      )
      if (watcher === "Unavailable") {
        state.watchable = false
        invalidate(state)
      } else if (watcher !== "Missing") {
        state.watchers.set(relative, watcher)
        state.folders.add(relative)
      }
    }

    const noteAt = (state: HomeState, relative: string, bytes: number, updatedMs: number): CachedNote => ({
      relative,
      address: formatAddress({ home: state.home, path: relative }),
      bytes,
      updatedMs,
      title: undefined,
      body: undefined
    })

    /** Walks the folder `relative` into `notes`, watching each folder before reading it when `watching`. */
    const walkInto = (state: HomeState, notes: Map<string, CachedNote>, relative: string, watching: boolean) =>
      Effect.gen(function*() {
        const files = yield* walkNotes(ops, absolute(state, relative), {
          relativeBase: relative,
          beforeRead: watching ? watchBeforeRead(state) : undefined,
          onRefused: (path) => void state.refused.add(path)
        })
        const kinds = yield* statPaths(files.map((file) => file.absolute))
        for (let i = 0; i < files.length; i++) {
          const kind = kinds[i]!
          if (kind._tag === "File") notes.set(files[i]!.relative, noteAt(state, files[i]!.relative, kind.bytes, kind.updatedMs))
        }
      })

    const fullWalk = (state: HomeState, root: { readonly dev: number; readonly ino: number } | undefined) =>
      Effect.gen(function*() {
        invalidate(state)
        const epoch = state.epoch
        const watching = root !== undefined && state.watchable && !state.closed && (yield* watchableFileSystem(state.dir))
        const notes = new Map<string, CachedNote>()
        state.notes = notes
        state.refused = new Set()
        yield* walkInto(state, notes, "", watching)
        if (watching && epoch === state.epoch && state.watchable && !state.closed && state.watchers.has("")) state.root = root
        else if (!watching) closeWatchers(state)
      })

    /** Drops what the cache knows at `relative` and, if it was a folder, everything under it. */
    const removeAt = (state: HomeState, relative: string): void => {
      state.notes.delete(relative)
      for (const refused of state.refused) if (refused === relative || refused.startsWith(`${relative}/`)) state.refused.delete(refused)
      if (!state.folders.has(relative)) return
      // Only a known folder can have notes under it: every folder walked was watched first.
      const prefix = `${relative}/`
      // A watcher is only ever on a known folder.
      for (const folder of state.folders) {
        if (folder !== relative && !folder.startsWith(prefix)) continue
        state.folders.delete(folder)
        state.watchers.get(folder)?.close()
        state.watchers.delete(folder)
      }
      for (const path of state.notes.keys()) if (path.startsWith(prefix)) state.notes.delete(path)
    }

    /** The outermost folder on the way to `relative` that has no watcher: new, or replaced, so walked whole. */
    const unwatchedFolder = (state: HomeState, relative: string): string | undefined => {
      for (let slash = relative.indexOf("/"); slash !== -1; slash = relative.indexOf("/", slash + 1)) {
        const folder = relative.slice(0, slash)
        if (!state.folders.has(folder)) return folder
      }
      return undefined
    }

    /** Looks again at every path named since the last read. */
    const refresh = (state: HomeState) =>
      Effect.gen(function*() {
        if (state.dirty.size === 0) return
        const targets = new Set<string>()
        for (const path of state.dirty) targets.add(unwatchedFolder(state, path) ?? path)
        state.dirty.clear()
        // A folder sorts before everything under it.
        const paths = [...targets].sort()
        const kinds = yield* statPaths(paths.map((path) => absolute(state, path)))
        const walks: Array<string> = []
        for (let i = 0; i < paths.length; i++) {
          const path = paths[i]!
          if (walks.some((folder) => path.startsWith(`${folder}/`))) continue
          const kind = kinds[i]!
          removeAt(state, path)
          if (path.split("/").some(isGitFolder)) continue
          // A name no address can hold is left out, and kept to be told of, as walkNotes does.
          if (path.split("/").some(hasUnshowableCharacter) && (kind._tag === "Missing" || state.refused.add(path))) continue
          if (kind._tag === "File" && path.endsWith(".md")) state.notes.set(path, noteAt(state, path, kind.bytes, kind.updatedMs))
          else if (kind._tag === "Directory") walks.push(path)
        }
        for (const folder of walks) yield* walkInto(state, state.notes, folder, true)
      })

    /** Brings the cache of one home up to date with the disk. */
    const current = (state: HomeState): Effect.Effect<void, PlatformError.PlatformError> =>
      Effect.gen(function*() {
        const [root] = yield* statPaths([state.dir], { follow: true })
        if (root!._tag === "Missing") {
          // A home not made yet (the usual case for most homes), or gone: empty, without a walk.
          invalidate(state)
          state.notes = new Map()
          state.refused = new Set()
          return
        }
        if (root!._tag !== "Directory") return yield* fullWalk(state, undefined)
        if (state.root !== undefined && state.root.dev === root!.dev && state.root.ino === root!.ino) return yield* refresh(state)
        yield* fullWalk(state, { dev: root!.dev, ino: root!.ino })
      }).pipe(
        Effect.tapError(() =>
          Effect.sync(() => {
            invalidate(state)
            state.notes = new Map()
          })
        )
      )

    const stateOf = (home: Home, given: string): HomeState => {
      const dir = ops.path.resolve(given)
      let state = states.get(dir)
      if (state === undefined || state.home !== home) {
        if (state !== undefined) {
          state.closed = true
          invalidate(state)
        }
        state = {
          home,
          dir,
          lock: Semaphore.makeUnsafe(1),
          notes: new Map(),
          watchers: new Map(),
          folders: new Set(),
          dirty: new Set(),
          refused: new Set(),
          root: undefined,
          epoch: 0,
          watchable: true,
          closed: false,
          used: 0
        }
        states.set(dir, state)
        if (states.size > MaxCachedHomes) {
          let oldest: HomeState | undefined
          for (const candidate of states.values()) if (candidate !== state && (oldest === undefined || candidate.used < oldest.used)) oldest = candidate
          if (oldest !== undefined) {
            oldest.closed = true
            invalidate(oldest)
            states.delete(oldest.dir)
          }
        }
      }
      state.used = ++clock
      return state
    }

    const settle = Effect.suspend(() => {
      for (const state of states.values()) if (state.watchers.size > 0) return turnOfEventLoop
      return Effect.void
    })

    const rowOf = (state: HomeState, note: CachedNote, title: string): NoteRow => ({
      home: state.home,
      address: note.address,
      bytes: note.bytes,
      updatedMs: note.updatedMs,
      title
    })

    const rows = (home: Home, dir: string): Effect.Effect<ReadonlyArray<NoteRow>, NotesHomeUnavailable> => {
      const state = stateOf(home, dir)
      return state.lock.withPermit(
        Effect.map(current(state), () => Array.from(state.notes.values(), (note) => rowOf(state, note, "")))
      ).pipe(Effect.mapError(homeUnavailable(home)))
    }

    const snapshot = (home: Home, dir: string, location: string): Effect.Effect<HomeSnapshot, NotesHomeUnavailable> => {
      const state = stateOf(home, dir)
      return state.lock.withPermit(Effect.gen(function*() {
        yield* current(state)
        let map: CachedNote | undefined
        const top: Array<CachedNote> = []
        for (const note of state.notes.values()) {
          if (note.relative === MapPath) map = note
          else insertRecent(top, note)
        }
        yield* readMissingTitles(top, (relative) => absolute(state, relative))
        if (map !== undefined && map.bytes <= NoteByteLimit && map.body === undefined) {
          const text = yield* readText(absolute(state, MapPath)).pipe(
            Effect.tapError(() => Effect.sync(() => invalidate(state)))
          )
          map.body = parseNote(text).body
        }
        // This session's newest note is quoted by the boot: its body is read once per change, as the MAP's is.
        const newest = home === "session" ? top[0] : undefined
        if (newest !== undefined && newest.bytes <= NoteByteLimit && newest.body === undefined) {
          const text = yield* readText(absolute(state, newest.relative)).pipe(Effect.orElseSucceed(() => undefined))
          if (text !== undefined) newest.body = parseNote(text).body
        }
        const result: HomeSnapshot = {
          _tag: "Available",
          home,
          location,
          map: map === undefined || map.body === undefined ? undefined : { address: map.address, body: map.body, bytes: map.bytes, updatedMs: map.updatedMs },
          recent: top.map((note) => rowOf(state, note, note.title ?? "")),
          noteCount: state.notes.size - (map === undefined ? 0 : 1),
          ...(newest?.body === undefined ? {} : { latest: { address: newest.address, body: newest.body, bytes: newest.bytes, updatedMs: newest.updatedMs } }),
          ...(state.refused.size === 0 ? {} : { refused: [...state.refused].sort() })
        }
        return result
      })).pipe(Effect.mapError(homeUnavailable(home)))
    }

    const changed = (dir: string, relative: string): void => {
      const state = states.get(ops.path.resolve(dir))
      if (state !== undefined) markDirty(state, relative)
    }

    const forget = (dir: string): void => {
      const state = states.get(ops.path.resolve(dir))
      if (state !== undefined) invalidate(state)
    }

    return { settle, rows, snapshot, changed, forget }
  })
