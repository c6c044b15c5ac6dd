import { Clock, Effect, FileSystem, Option, Path } from "effect"
import { commitMessage, type CommitReason, commitTrailers, countChanges, parseIgnored, parseStatus, pathspecFolder } from "./versions.ts"
import { OperationMarkers, repoState, type RepoState } from "./repoState.ts"
import { GitFailed, type GitRunner } from "./NotesVersions.ts"

/**
 * Opening the notes root as a repository, and committing a set of notes in
 * it. A root that is already inside one of the user's repositories is used
 * as it is: its history is only ever added to, only the notes' own paths
 * are committed, and the user's identity is kept (pi-context's own author
 * only when none is configured).
 */

export type Repo =
  | {
    readonly _tag: "Ready"
    readonly toplevel: string
    /** The repository's own folder for this work tree (`.git`, or a linked work tree's). */
    readonly gitDir: string
    /** The notes root's path from the top level (`""` or `notes/`). */
    readonly prefix: string
    /** pi-context created this repository in the notes root. */
    readonly owned: boolean
    /** `-c user.name=… -c user.email=…` when the repository has no identity of its own. */
    readonly identityArgs: ReadonlyArray<string>
  }
  | { readonly _tag: "Off"; readonly reason: string }
  /** The root does not exist yet: nothing to commit, and nothing created. */
  | { readonly _tag: "NotYet" }

export const PiContextAuthor = { name: "pi-context", email: "pi-context@localhost" } as const

/** Files pi-context leaves beside notes for a moment, kept out of `git status` in its own repository. */
const ownExcludes = ["*.lock", "*.tmp-*", "*.stale-*"]

/** Git's messages name paths of the user's machine: the notes root is said as such. */
export const hidePaths = (text: string, root: string): string => text.split(root).join("<notes root>")

/** Opens the root's repository; creates one only when `create` (a commit), never for a report. */
export const openRepo = (git: GitRunner, root: string, create: boolean) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (!(yield* fs.exists(root).pipe(Effect.orElseSucceed(() => false)))) return { _tag: "NotYet" } as Repo
    const off = (error: GitFailed): Repo => ({ _tag: "Off", reason: hidePaths(error.message, root) })

    const locate = git(root, ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--show-prefix"]).pipe(
      Effect.map(({ stdout }) => {
        const [toplevel = root, gitDir = path.join(root, ".git"), prefix = ""] = stdout.split("\n")
        return { toplevel, gitDir, prefix }
      })
    )
    const configured = (key: string) =>
      git(root, ["config", "--get", key]).pipe(Effect.map(({ stdout }) => Option.some(stdout.trim())), Effect.orElseSucceed(() => Option.none<string>()))

    const existing = yield* Effect.result(locate)
    if (existing._tag === "Success") {
      const owned = Option.getOrUndefined(yield* configured("pi-context.created")) !== undefined
      const hasIdentity = Option.isSome(yield* configured("user.name")) && Option.isSome(yield* configured("user.email"))
      return {
        _tag: "Ready",
        ...existing.success,
        owned,
        identityArgs: hasIdentity ? [] : ["-c", `user.name=${PiContextAuthor.name}`, "-c", `user.email=${PiContextAuthor.email}`]
      } as Repo
    }
    if (existing.failure.reason === "missing" || !/not a git repository/i.test(existing.failure.detail)) return off(existing.failure)
    if (!create) return { _tag: "NotYet" } as Repo

    // Created on the first commit: a repository of pi-context's own, with its own author.
    const created = yield* Effect.result(Effect.gen(function*() {
      yield* git(root, ["init", "-q"])
      yield* git(root, ["config", "user.name", PiContextAuthor.name])
      yield* git(root, ["config", "user.email", PiContextAuthor.email])
      yield* git(root, ["config", "pi-context.created", "true"])
      // Thousands of small files: a smaller index and a cache of untracked folders, for every status and commit.
      yield* git(root, ["config", "feature.manyFiles", "true"])
      return yield* locate
    }))
    if (created._tag === "Failure") return off(created.failure)
    const exclude = path.join(root, ".git", "info", "exclude")
    yield* Effect.ignore(
      fs.readFileString(exclude).pipe(
        Effect.orElseSucceed(() => ""),
        Effect.flatMap((text) => fs.writeFileString(exclude, `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${ownExcludes.join("\n")}\n`))
      )
    )
    return { _tag: "Ready", ...created.success, owned: true, identityArgs: [] } as Repo
  })

/** A repository ready for commits. */
export type Ready = Repo & { readonly _tag: "Ready" }

/** Above this many changed notes, they are staged by folder glob rather than path by path (`update-index` inserts one at a time). */
const ManyPaths = 500

/** An index lock older than this was left by a git that was ended: none of pi-context's git runs lasts a minute (git.ts). */
export const StaleLockMs = 60_000

/**
 * Removes the index lock of pi-context's own repository when a git that was
 * ended left it: a commit cut at the session's end is killed, with no chance
 * to remove its lock, and every later commit would fail on it. Only in its
 * own repository: in the user's, a lock that old may be their `git commit`
 * waiting on its editor.
 */
const clearStaleLock = (repo: Ready) =>
  Effect.gen(function*() {
    if (!repo.owned) return
    const fs = yield* FileSystem.FileSystem
    const lock = (yield* Path.Path).join(repo.gitDir, "index.lock")
    const info = yield* Effect.option(fs.stat(lock))
    const modified = Option.isSome(info) ? Option.getOrUndefined(info.value.mtime) : undefined
    if (modified === undefined || (yield* Clock.currentTimeMillis) - modified.getTime() < StaleLockMs) return
    yield* Effect.ignore(fs.remove(lock))
  })

/** Whether the repository is on a branch, or in an operation of the user's (a merge, a rebase, …) or on a detached HEAD. */
export const stateOf = (repo: Ready) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const head = yield* fs.readFileString(path.join(repo.gitDir, "HEAD")).pipe(Effect.orElseSucceed(() => "ref: "))
    const present = yield* Effect.filter(
      OperationMarkers.map((marker) => marker.file),
      (file) => fs.exists(path.join(repo.gitDir, file)).pipe(Effect.orElseSucceed(() => false)),
      { concurrency: "unbounded" }
    )
    return repoState(head, present)
  })

/**
 * What a commit did: committed the notes that changed, found none changed,
 * or waited because the repository is not on a branch. `ignored` are the
 * notes (or their folders) a `.gitignore` keeps out of the history.
 */
export type CommitOutcome =
  | { readonly _tag: "Committed"; readonly message: string; readonly files: number; readonly ignored: ReadonlyArray<string> }
  | { readonly _tag: "Unchanged"; readonly ignored: ReadonlyArray<string> }
  | { readonly _tag: "Waiting"; readonly state: Exclude<RepoState, { readonly _tag: "OnBranch" }> }

const outcome = (value: CommitOutcome): CommitOutcome => value

/**
 * Commits the notes matching `pathspecs` that differ from HEAD, and only
 * them: when the user has staged something else, `--only` leaves it staged
 * and out of the commit. Nothing changed, no commit; a repository in the
 * middle of the user's merge or rebase, or on a detached HEAD, no commit
 * either. A window's few paths go through `update-index` (no pathspec
 * matching: `git add` of 10,000 literal paths took eight seconds), and the
 * common commit skips the untracked-file scan. The user's hooks never run
 * (git.ts) and the commit is not signed (signing may prompt). A commit that
 * fails leaves the index as it found it.
 */
export const commitScope = Effect.fnUntraced(function*(
  git: GitRunner,
  repo: Ready,
  pathspecs: ReadonlyArray<string>,
  reason: CommitReason,
  sessionId: string
) {
  yield* clearStaleLock(repo)
  const state = yield* stateOf(repo)
  if (state._tag !== "OnBranch") return outcome({ _tag: "Waiting", state })
  // The folders of the glob pathspecs, walked as literal prefixes (git's `**` glob matching costs about 5 ms over
  // 10,000 notes), and their notes (`*.md`) picked out here; any other pathspec is passed as it is.
  const folders = pathspecs.flatMap((spec) => pathspecFolder(spec) ?? [])
  const statusSpecs = pathspecs.map((spec) => {
    const folder = pathspecFolder(spec)
    return folder === undefined ? spec : `:(literal)${folder}/`
  })
  // What changed in the notes, and what is staged anywhere (the user's own work in a shared repository), side by side:
  // both only read the repository.
  const [status, stagedOutput] = yield* Effect.all([
    git(repo.toplevel, [
      "-c",
      "core.quotePath=false",
      "status",
      "--porcelain=v1",
      "-z",
      "--untracked-files=all",
      "--ignored=matching",
      "--no-renames",
      "--",
      ...statusSpecs
    ]),
    git(repo.toplevel, ["diff", "--cached", "--name-only", "--no-renames", "-z"])
  ], { concurrency: 2 })
  const outsideFolders = (path: string) => !folders.some((folder) => path.startsWith(`${folder}/`))
  const changes = parseStatus(status.stdout).filter((change) => change.path.endsWith(".md") || outsideFolders(change.path))
  // An ignored note, or an ignored folder that holds notes (git names the folder, not its files).
  const ignored = parseIgnored(status.stdout).filter((p) =>
    p.endsWith(".md") || p.endsWith("/") && folders.some((folder) => `${folder}/`.startsWith(p) || p.startsWith(`${folder}/`))
  )
  if (changes.length === 0) return outcome({ _tag: "Unchanged", ignored })
  const ours = new Set(changes.map((change) => change.path))
  const staged = stagedOutput.stdout.split("\0").filter((p) => p !== "")
  // The user's own staged version of a note, put back if the commit fails.
  const stagedNotes = new Set(staged.filter((p) => ours.has(p)))
  // Many staged notes (a restore stages a whole home) are listed by their folders and picked out here: git matches
  // each literal pathspec against every entry (20,000 of them took 1.3 s).
  const stagedEntries = stagedNotes.size === 0
    ? ""
    : stagedNotes.size <= ManyPaths
    ? (yield* git(repo.toplevel, ["--literal-pathspecs", "ls-files", "-s", "-z", "--", ...stagedNotes])).stdout
    : (yield* git(repo.toplevel, ["ls-files", "-s", "-z", "--", ...statusSpecs])).stdout.split("\0")
      .filter((entry) => stagedNotes.has(entry.slice(entry.indexOf("\t") + 1))).map((entry) => `${entry}\0`).join("")
  const unstage = [...ours].filter((p) => !stagedNotes.has(p))
  const putIndexBack = Effect.all([
    unstage.length === 0
      ? Effect.void
      : git(repo.toplevel, ["--literal-pathspecs", "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"], unstage.join("\0")),
    stagedEntries === "" ? Effect.void : git(repo.toplevel, ["update-index", "-z", "--index-info"], stagedEntries)
  ])
  // The globs of the folders that changed: `git add` of a few globs stays linear where many literal paths would not.
  const changedSpecs = pathspecs.filter((spec) => {
    const folder = pathspecFolder(spec)
    return folder === undefined || changes.some((change) => change.path.startsWith(`${folder}/`))
  })
  const message = commitMessage(reason, sessionId, countChanges(changes))
  const commit = [...repo.identityArgs, "-c", "commit.gpgSign=false", "commit", "--no-verify", "-q", "-m", message, "-m", commitTrailers(reason, sessionId)]
  yield* Effect.gen(function*() {
    const files = { files: ours.size }
    yield* ours.size <= ManyPaths
      ? git(repo.toplevel, ["update-index", "--add", "--remove", "-z", "--stdin"], [...ours].join("\0"), files)
      : git(repo.toplevel, ["add", "-A", "--", ...changedSpecs], undefined, files)
    yield* staged.every((path) => ours.has(path))
      ? git(repo.toplevel, [...commit, "--untracked-files=no"], undefined, files)
      : git(repo.toplevel, [...commit, "--only", "--", ...changedSpecs], undefined, files)
  }).pipe(Effect.onError(() => Effect.ignore(putIndexBack)))
  return outcome({ _tag: "Committed", message, files: changes.length, ignored })
})

/** The rule that ignores `path` (`notes/.gitignore:1 "*.md"`), when git names one. */
export const ignoreRule = (git: GitRunner, repo: Ready, path: string) =>
  git(repo.toplevel, ["check-ignore", "-v", "-z", "--stdin"], `${path}\0`).pipe(
    Effect.map(({ stdout }) => {
      const [source, line, pattern] = stdout.split("\0")
      return source === undefined || line === undefined || pattern === undefined || source === ""
        ? undefined
        : `${hidePaths(source, repo.toplevel)}:${line} "${pattern}"`
    }),
    Effect.orElseSucceed(() => undefined)
  )

/** The notes (or folders of notes) under `pathspecs` that git ignores, for doctor. */
export const ignoredNotes = (git: GitRunner, repo: Ready, pathspecs: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const folders = pathspecs.flatMap((spec) => pathspecFolder(spec) ?? []).map((folder) => `:(literal)${folder}/`)
    if (folders.length === 0) return []
    const listed = yield* git(repo.toplevel, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", ...folders])
    return listed.stdout.split("\0").filter((p) => p.endsWith(".md"))
  })

/** Git's name of no object: in `--index-info`, the mode 0 and this id take a path out of the index. */
const NoObject = "0".repeat(40)

/** At most this many bytes of notes are read from git in one run (its output is capped at 64 MB, git.ts). */
const BlobBatchBytes = 16 * 1024 * 1024
/** A note larger than this is checked out by git itself rather than read whole into memory. */
const LargestNoteRead = 1024 * 1024

/** One entry of `ls-tree -r -l -z`: `<mode> <type> <object> <size>\t<path>`. */
interface TreeEntry {
  readonly mode: string
  readonly type: string
  readonly oid: string
  readonly size: number
  readonly path: string
}

const parseTreeEntry = (line: string): TreeEntry | undefined => {
  const tab = line.indexOf("\t")
  const [mode, type, oid, size] = line.slice(0, tab).split(" ").filter((field) => field !== "")
  if (tab < 0 || mode === undefined || type === undefined || oid === undefined || size === undefined) return undefined
  return { mode, type, oid, size: Number(size), path: line.slice(tab + 1) }
}

/** Splits `entries` into runs of at most `limit` bytes each (a larger entry goes alone). */
export const batchesBySize = <A extends { readonly size: number }>(entries: ReadonlyArray<A>, limit: number): Array<Array<A>> => {
  const batches: Array<Array<A>> = []
  let current: Array<A> = []
  let bytes = 0
  for (const entry of entries) {
    if (current.length > 0 && bytes + entry.size > limit) {
      batches.push(current)
      current = []
      bytes = 0
    }
    current.push(entry)
    bytes += entry.size
  }
  if (current.length > 0) batches.push(current)
  return batches
}

/** The blobs of `cat-file --batch`'s output (`<oid> blob <size>\n<bytes>\n` each), by id; undefined when it is not that. */
export const parseBlobBatch = (output: Uint8Array): Map<string, Uint8Array> | undefined => {
  const blobs = new Map<string, Uint8Array>()
  let at = 0
  while (at < output.length) {
    const newline = output.indexOf(10, at)
    if (newline < 0) return undefined
    const [oid, type, size] = new TextDecoder().decode(output.subarray(at, newline)).split(" ")
    const bytes = Number(size)
    if (oid === undefined || type !== "blob" || !Number.isInteger(bytes) || newline + 1 + bytes > output.length) return undefined
    blobs.set(oid, output.subarray(newline + 1, newline + 1 + bytes))
    at = newline + 1 + bytes + 1
  }
  return blobs
}

/**
 * Brings the notes under `pathspecs` back to their state in `hash`, in the
 * index and the work tree: notes changed since return, notes added since go.
 * Only the notes that differ are touched, each named to git once: which ones
 * comes from one comparison of the commit with the index (the notes were just
 * committed as they are), their entries from one listing of the commit, and
 * one `update-index` stages them. A plain note is then rewritten in place
 * from its blob (read from git a few megabytes a run): `checkout-index -f`
 * deletes each file and creates it again, which on this project's disk costs
 * fifteen times an overwrite (20,000 notes: 6.8 s against 0.9 s). A note git
 * must write itself (a link, an executable, a folder or a missing blob in its
 * place, a note of megabytes, or a runner that keeps no bytes) goes through one
 * `checkout-index`. The next commit finds the rewritten notes by their
 * content, since their index entries carry no file times.
 */
export const restoreScope = Effect.fnUntraced(function*(git: GitRunner, repo: Ready, pathspecs: ReadonlyArray<string>, hash: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const folders = pathspecs.flatMap((spec) => pathspecFolder(spec) ?? []).map((folder) => `:(literal)${folder}/`)
  if (folders.length === 0) return
  const compared = yield* git(repo.toplevel, ["diff-index", "--cached", "-z", "--no-renames", "--name-status", hash, "--", ...folders])
  // `--name-status -z`: a status, then its path, each ended by NUL; from the commit's side, A is a note added since.
  const fields = compared.stdout.split("\0")
  const back = new Set<string>()
  const added: Array<string> = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i]!
    const note = fields[i + 1]!
    if (!note.endsWith(".md")) continue
    if (status === "A") added.push(note)
    else back.add(note)
  }
  if (back.size === 0 && added.length === 0) return
  const files = back.size + added.length
  const listed = back.size === 0 ? "" : (yield* git(repo.toplevel, ["ls-tree", "-r", "-l", "-z", hash, "--", ...folders], undefined, { files })).stdout
  const entries = listed.split("\0").flatMap((line) => {
    const entry = parseTreeEntry(line)
    return entry !== undefined && back.has(entry.path) ? [entry] : []
  })
  const info = [...entries.map((entry) => `${entry.mode} ${entry.type} ${entry.oid}\t${entry.path}`), ...added.map((note) => `0 ${NoObject}\t${note}`)]
    .map((line) => `${line}\0`).join("")
  yield* git(repo.toplevel, ["update-index", "-z", "--index-info"], info, { files })
  const inWorkTree = (note: string) => path.join(repo.toplevel, ...note.split("/"))

  // A note is overwritten in place, truncated only after (a truncation to nothing first makes ext4 write the file out
  // at once: ten times slower), when it is a regular file of its own, not executable, as its blob's mode says; a
  // missing note is created. Anything else, or a file that cannot be opened so (a link), is left to git.
  const overwrite = (note: string, blob: Uint8Array) =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(inWorkTree(note), { flag: "r+", noFollow: true })
      const info = yield* file.stat
      if (info.type !== "File" || (info.mode & 0o111) !== 0 || Option.getOrElse(info.nlink, () => 1n) > 1n) return false
      yield* file.writeAll(blob)
      yield* file.truncate(blob.length)
      return true
    })).pipe(
      Effect.catchTag("PlatformError", (error) =>
        error.reason._tag === "NotFound" ? Effect.as(fs.writeFile(inWorkTree(note), blob, { flag: "wx" }), true) : Effect.succeed(false))
    )
  const written = new Set<string>()
  const plain = entries.filter((entry) => entry.mode === "100644" && entry.type === "blob" && entry.size <= LargestNoteRead)
  for (const batch of batchesBySize(plain, BlobBatchBytes)) {
    const oids = [...new Set(batch.map((entry) => entry.oid))]
    const read = yield* git(repo.toplevel, ["cat-file", "--batch"], `${oids.join("\n")}\n`, { files: batch.length })
    const blobs = read.stdoutBytes === undefined ? undefined : parseBlobBatch(read.stdoutBytes)
    if (blobs === undefined) continue
    const parents = [...new Set(batch.map((entry) => path.dirname(inWorkTree(entry.path))))]
    yield* Effect.forEach(parents, (folder) => fs.makeDirectory(folder, { recursive: true }), { concurrency: 8, discard: true })
    yield* Effect.forEach(batch, (entry) =>
      Effect.gen(function*() {
        const blob = blobs.get(entry.oid)
        if (blob !== undefined && (yield* overwrite(entry.path, blob))) written.add(entry.path)
      }), { concurrency: 16, discard: true })
  }
  const byGit = [...back].filter((note) => !written.has(note))
  if (byGit.length > 0) yield* git(repo.toplevel, ["checkout-index", "-f", "-u", "-z", "--stdin"], byGit.join("\0"), { files: byGit.length })
  yield* Effect.forEach(added, (note) => fs.remove(inWorkTree(note), { force: true }), { concurrency: 8, discard: true })
}, Effect.mapError((error) =>
  error._tag === "GitFailed" ? error : new GitFailed({ command: "restore", reason: "failed", detail: `could not write a note back: ${error.message}` })
))
