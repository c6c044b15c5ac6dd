import * as NodeFs from "node:fs"
import { Effect, FileSystem, Option, Path, PlatformError, Random } from "effect"
import { isGitFolder } from "./address.ts"
import { hasUnshowableCharacter } from "../kernel/names.ts"

/**
 * Disk primitives of the notes store: atomic replace, chunked reads of
 * notes too large to hold, and a home walk that never follows symlinks.
 * The per-note lock is in notesLock.ts.
 */

export const isNotFound = (error: PlatformError.PlatformError): boolean => error.reason._tag === "NotFound"
export const isAlreadyExists = (error: PlatformError.PlatformError): boolean => error.reason._tag === "AlreadyExists"

/** `EACCES (PermissionDenied) in readDirectoryEntries`: enough to act on, no stack. */
export const describePlatformError = (error: PlatformError.PlatformError): string => {
  const reason = error.reason
  const cause = reason.cause as { readonly code?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : undefined
  const tag = reason._tag
  return code === undefined ? `${tag} in ${reason.method}` : `${code} (${tag}) in ${reason.method}`
}

let sequence = 0

/**
 * Unique within the machine: pid, a per-process sequence and a random tail;
 * at most 24 characters, so the names built from it stay within the room
 * address validation leaves (`SegmentByteLimit`).
 */
export const uniqueToken = Effect.map(Random.nextIntBetween(0, 0x7fffffff), (random) => {
  sequence = (sequence + 1) % 1_000_000
  return `${process.pid}-${sequence}-${random.toString(36)}`
})

export interface DiskOps {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
}

/** Same-directory temp file, fsync, rename: a reader sees the old note or the new one, never a torn one. */
export const writeAtomically = Effect.fnUntraced(function*(ops: DiskOps, target: string, data: Uint8Array) {
  const temp = `${target}.tmp-${yield* uniqueToken}`
  const writeAndSync = Effect.scoped(
    Effect.gen(function*() {
      const file = yield* ops.fs.open(temp, { flag: "wx" })
      yield* file.writeAll(data)
      yield* file.sync
    })
  )
  yield* Effect.andThen(writeAndSync, ops.fs.rename(temp, target)).pipe(
    Effect.tapError(() => Effect.ignore(ops.fs.remove(temp)))
  )
})

const ChunkBytes = 64 * 1024

/**
 * The UTF-8 text of an open `file` from its start, handed to `onText` one
 * chunk at a time (a character split across chunks arrives whole), so a
 * note of any size is read in bounded memory. Can be run again on the same
 * file: every pass reads the one version that was opened.
 */
export const readTextChunks = (file: FileSystem.File, onText: (text: string) => void): Effect.Effect<void, PlatformError.PlatformError> =>
  Effect.gen(function*() {
    const decoder = new TextDecoder("utf-8")
    let position = 0n
    while (true) {
      const chunk = yield* file.readAlloc(ChunkBytes, { position })
      if (Option.isNone(chunk) || chunk.value.length === 0) break
      position += BigInt(chunk.value.length)
      const text = decoder.decode(chunk.value, { stream: true })
      if (text !== "") onText(text)
    }
    const rest = decoder.decode()
    if (rest !== "") onText(rest)
  })

export interface NoteFile {
  /** Path inside the home, `/`-separated, ending in `.md`. */
  readonly relative: string
  readonly absolute: string
}

/**
 * Every regular `.md` file under `dir`. Symlinks are not followed, so a
 * listing or search cannot read outside the home; a `.git` folder is not
 * walked (nothing in it is a note), nor is a name with a control or invisible
 * character (`onRefused` is told of it). A missing `dir` is empty,
 * and so is a folder removed while the walk runs.
 *
 * `relativeBase` names `dir` inside its home (the walk of a sub-folder);
 * `beforeRead` runs before each folder is read, so a watcher installed
 * there sees every change the read does not.
 */
export const walkNotes = (
  ops: DiskOps,
  dir: string,
  options?: {
    readonly relativeBase?: string | undefined
    readonly beforeRead?: ((relative: string, absolute: string) => void) | undefined
    /** Told of each file or folder left out because its name holds a control or invisible character. */
    readonly onRefused?: ((relative: string) => void) | undefined
  }
): Effect.Effect<ReadonlyArray<NoteFile>, PlatformError.PlatformError> => {
  const beforeRead = options?.beforeRead
  const onRefused = options?.onRefused
  const visit = (absolute: string, relative: string): Effect.Effect<ReadonlyArray<NoteFile>, PlatformError.PlatformError> =>
    Effect.suspend(() => {
      beforeRead?.(relative, absolute)
      return ops.fs.readDirectoryEntries(absolute)
    }).pipe(
      Effect.flatMap((entries) => {
        const files: Array<NoteFile> = []
        const subdirs: Array<Effect.Effect<ReadonlyArray<NoteFile>, PlatformError.PlatformError>> = []
        for (const entry of entries) {
          const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`
          if (hasUnshowableCharacter(entry.name)) {
            // No note address holds such a name, and shown anywhere it could forge text: left where it is, and told.
            if (entry.type === "File" || entry.type === "Directory") onRefused?.(childRelative)
            continue
          }
          // A listed name is one segment and `absolute` is already resolved: no join (which normalizes) per note.
          const childAbsolute = `${absolute}${ops.path.sep}${entry.name}`
          if (entry.type === "File" && entry.name.endsWith(".md")) files.push({ relative: childRelative, absolute: childAbsolute })
          else if (entry.type === "Directory" && !isGitFolder(entry.name)) subdirs.push(visit(childAbsolute, childRelative))
        }
        return subdirs.length === 0
          ? Effect.succeed(files)
          : Effect.map(Effect.all(subdirs, { concurrency: 8 }), (nested) => files.concat(...nested))
      }),
      Effect.catchIf(isNotFound, () => Effect.succeed([]))
    )
  return visit(ops.path.resolve(dir), options?.relativeBase ?? "")
}

/** What `lstat` found at a path: only what the notes cache needs. */
export type PathKind =
  | { readonly _tag: "File"; readonly bytes: number; readonly updatedMs: number }
  | { readonly _tag: "Directory"; readonly dev: number; readonly ino: number }
  | { readonly _tag: "Other" }
  | { readonly _tag: "Missing" }

const missing: PathKind = { _tag: "Missing" }
const other: PathKind = { _tag: "Other" }

const kindOf = (stats: NodeFs.Stats): PathKind =>
  stats.isFile()
    ? { _tag: "File", bytes: stats.size, updatedMs: Math.trunc(stats.mtimeMs) }
    : stats.isDirectory()
    ? { _tag: "Directory", dev: stats.dev, ino: stats.ino }
    : other

const errnoError = (method: string, path: string, error: NodeJS.ErrnoException): PlatformError.PlatformError =>
  PlatformError.systemError({
    _tag: error.code === "ENOENT" || error.code === "ENOTDIR"
      ? "NotFound"
      : error.code === "EACCES" || error.code === "EPERM"
      ? "PermissionDenied"
      : "Unknown",
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    cause: error
  })

/**
 * `lstat` (or `stat` with `follow`) of many paths, synchronously: over 10,000
 * notes one call each through libuv's thread pool (a request, a wake-up and a
 * callback per file, as Effect's FileSystem or Node's callback API do) costs
 * several times the syscall itself, on the main thread too. A path that is
 * gone is `Missing`; any other error fails the batch.
 */
export const statPaths = (
  paths: ReadonlyArray<string>,
  options?: { readonly follow?: boolean | undefined }
): Effect.Effect<Array<PathKind>, PlatformError.PlatformError> =>
  Effect.suspend(() => {
    const follow = options?.follow === true
    const kinds = new Array<PathKind>(paths.length)
    for (let i = 0; i < paths.length; i++) {
      const kind = kindAt(paths[i]!, follow)
      if (PlatformError.isPlatformError(kind)) return Effect.fail(kind)
      kinds[i] = kind
    }
    return Effect.succeed(kinds)
  })

const kindAt = (target: string, follow: boolean): PathKind | PlatformError.PlatformError => {
  try {
    const stats = follow ? NodeFs.statSync(target, { throwIfNoEntry: false }) : NodeFs.lstatSync(target, { throwIfNoEntry: false })
    return stats === undefined ? missing : kindOf(stats)
  } catch (error) {
    const errno = error as NodeJS.ErrnoException
    return errno.code === "ENOENT" || errno.code === "ENOTDIR" ? missing : errnoError(follow ? "stat" : "lstat", target, errno)
  }
}

/** A note of a folder as its listing found it: its path in the folder, and its size and time (undefined: gone meanwhile, or not a file). */
export interface StatedNote {
  readonly relative: string
  readonly file: string
  readonly stat: { readonly bytes: number; readonly updatedMs: number } | undefined
}

/**
 * Every note under `dir` (no symbolic link followed; `.git` folders and the
 * notes `skip` names left out) with its size and time, one folder at a time
 * on this thread: a sync looks at every synced note, thousands of them, and
 * a stat through the thread pool costs several times the stat itself. The
 * fiber yields after each folder.
 */
export const statNotesUnder = (
  ops: DiskOps,
  dir: string,
  skip: (relative: string) => boolean
): Effect.Effect<ReadonlyArray<StatedNote>, PlatformError.PlatformError> =>
  Effect.gen(function*() {
    const notes: Array<StatedNote> = []
    const folders: Array<{ readonly absolute: string; readonly relative: string }> = [{ absolute: dir, relative: "" }]
    for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
      const { absolute, relative } = folder
      yield* Effect.try({
        try: () => {
          for (const entry of NodeFs.readdirSync(absolute, { withFileTypes: true })) {
            const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`
            const child = ops.path.join(absolute, entry.name)
            if (entry.isDirectory()) {
              if (!isGitFolder(entry.name)) folders.push({ absolute: child, relative: childRelative })
              continue
            }
            if (!entry.isFile() || !entry.name.endsWith(".md") || skip(childRelative)) continue
            const stats = NodeFs.lstatSync(child, { throwIfNoEntry: false })
            notes.push({
              relative: childRelative,
              file: child,
              stat: stats?.isFile() === true ? { bytes: stats.size, updatedMs: Math.trunc(stats.mtimeMs) } : undefined
            })
          }
        },
        catch: (error) => errnoError("readdirSync", absolute, error as NodeJS.ErrnoException)
      }).pipe(Effect.catchIf(isNotFound, () => Effect.void))
      yield* Effect.yieldNow
    }
    return notes
  })

/**
 * How a note is opened to be read: never through a symbolic link (a note
 * swapped for one after the walk is not followed out of its home) and never
 * waiting on a FIFO put where a note was (it reads as empty, or an error).
 */
const NoteReadFlags = NodeFs.constants.O_RDONLY | (NodeFs.constants.O_NOFOLLOW ?? 0) | (NodeFs.constants.O_NONBLOCK ?? 0)

/** The UTF-8 text of one note, or why it could not be read. */
const readNoteText = (target: string): string | PlatformError.PlatformError => {
  try {
    return NodeFs.readFileSync(target, { encoding: "utf8", flag: NoteReadFlags })
  } catch (error) {
    return errnoError("readFile", target, error as NodeJS.ErrnoException)
  }
}

const attempt = <A>(method: string, target: string, run: () => A): Effect.Effect<A, PlatformError.PlatformError> =>
  Effect.try({ try: run, catch: (error) => errnoError(method, target, error as NodeJS.ErrnoException) })

/** The UTF-8 text of a note's first `bytes` bytes (a character cut at the end is dropped), or why it could not be read. */
export const readNoteHead = (target: string, bytes: number): Effect.Effect<string, PlatformError.PlatformError> =>
  Effect.acquireUseRelease(
    attempt("open", target, () => NodeFs.openSync(target, NoteReadFlags)),
    (fd) =>
      attempt("read", target, () => {
        const buffer = Buffer.allocUnsafe(bytes)
        const read = NodeFs.readSync(fd, buffer, 0, bytes, 0)
        return new TextDecoder().decode(buffer.subarray(0, read), { stream: true })
      }),
    (fd) => Effect.sync(() => NodeFs.closeSync(fd))
  )

/** The whole UTF-8 text of one note, or why it could not be read; synchronous, for the reason `statPaths` is. */
export const readText = (target: string): Effect.Effect<string, PlatformError.PlatformError> =>
  Effect.suspend(() => {
    const text = readNoteText(target)
    return typeof text === "string" ? Effect.succeed(text) : Effect.fail(text)
  })

/**
 * The text of the regular file at `target`, undefined when there is none:
 * missing, or a link, a folder, a FIFO or a device, none of which is ever
 * opened (a link is never followed, a FIFO never waited on).
 */
export const readRegularText = (target: string): Effect.Effect<string | undefined, PlatformError.PlatformError> =>
  Effect.suspend(() => {
    const kind = kindAt(target, false)
    if (PlatformError.isPlatformError(kind)) return Effect.fail(kind)
    if (kind._tag !== "File") return Effect.succeed(undefined)
    const text = readNoteText(target)
    return typeof text === "string" ? Effect.succeed(text) : Effect.fail(text)
  })

/**
 * Whether `relative` under `root` can be written without going through
 * anything but real folders: each folder on the way is one or is not there
 * yet, and the file itself is a regular file or is not there yet. A link on
 * the way (one a remote committed, say) would carry the write outside.
 * `realFolders` holds the folders a caller found real already in this pass
 * (a sync round writes thousands of notes into a few hundred folders): they
 * are not looked at again, and those found real here are added.
 */
export const writableWithoutLinks = (root: string, segments: ReadonlyArray<string>, realFolders?: Set<string>): boolean => {
  let current = root
  for (const [index, segment] of segments.entries()) {
    current = `${current}/${segment}`
    const folder = index < segments.length - 1
    if (folder && realFolders?.has(current)) continue
    const kind = kindAt(current, false)
    if (PlatformError.isPlatformError(kind)) return false
    if (kind._tag === "Missing") return true
    if (folder ? kind._tag !== "Directory" : kind._tag !== "File") return false
    if (folder) realFolders?.add(current)
  }
  return true
}

/** The text of each path (UTF-8), or why it could not be read; synchronous, for the reason `statPaths` is. */
export const readTexts = (paths: ReadonlyArray<string>): Effect.Effect<Array<string | PlatformError.PlatformError>> =>
  Effect.sync(() => paths.map(readNoteText))

/** Linux `statfs` magic numbers of file systems whose changes another machine can make unseen by inotify. */
const RemoteFileSystems = new Set([
  0x6969, // NFS
  0x517b, // SMB
  0xfe534d42, // SMB2
  0xff534d42, // CIFS
  0x65735546, // FUSE (sshfs, virtiofs, rclone, ...)
  0x00c36400, // Ceph
  0x01021997, // 9P (WSL2 drives, VM shares)
  0x5346414f, // AFS
  0x73757245, // Coda
  0x564c, // NCP
  0x01161970, // GFS2
  0x7461636f, // OCFS2
  0x0bd00bd0, // Lustre
  0x47504653, // GPFS
  0x20030528 // OrangeFS
])

/**
 * Whether a watcher on `dir` can be trusted to report every change: on Linux
 * only on a local file system (inotify never hears of a change made by
 * another machine); elsewhere Node's watcher (FSEvents, ReadDirectoryChangesW)
 * is taken at its word. An unanswerable `statfs` says no.
 */
export const watchableFileSystem = (dir: string): Effect.Effect<boolean> =>
  process.platform !== "linux" ? Effect.succeed(true) : Effect.callback<boolean>((resume) => {
    NodeFs.statfs(dir, (error, stats) => resume(Effect.succeed(error === null && !RemoteFileSystems.has(Number(stats.type)))))
  })

/**
 * A watcher on one folder (and everything below it when `recursive`) that
 * never keeps the process alive; `onChange` gets the path of what changed,
 * relative to the folder (undefined when the platform does not say).
 * `Missing` when the folder is gone, `Unavailable` when the system refuses a
 * watcher (out of inotify watches or descriptors).
 */
export const watchFolder = (
  dir: string,
  recursive: boolean,
  onChange: (name: string | undefined) => void,
  onError: () => void
): NodeFs.FSWatcher | "Missing" | "Unavailable" => {
  try {
    const watcher = NodeFs.watch(dir, { persistent: false, recursive }, (_event, name) => onChange(typeof name === "string" ? name : undefined))
    watcher.on("error", onError)
    return watcher
  } catch (error) {
    const code = (error as { readonly code?: unknown }).code
    return code === "ENOENT" || code === "ENOTDIR" ? "Missing" : "Unavailable"
  }
}

/** One turn of the event loop, after which a watcher has reported every change the kernel already queued. */
export const turnOfEventLoop = Effect.callback<void>((resume) => {
  // The first immediate may run in the same loop iteration as a poll that began before this call;
  // the second runs after a poll that began after it, which read every event queued by then.
  setImmediate(() => setImmediate(() => resume(Effect.void)))
})
