import { Effect, FileSystem, Option, Path } from "effect"
import { commitMessage, type CommitReason, countChanges, parseStatus, pathspecFolder } from "../../domain/notes/history.ts"
import type { GitFailed, GitRunner } from "../../services/NotesHistory.ts"

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

    const locate = git(root, ["rev-parse", "--show-toplevel", "--show-prefix"]).pipe(
      Effect.map(({ stdout }) => {
        const [toplevel = root, prefix = ""] = stdout.split("\n")
        return { toplevel, prefix }
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

type Ready = Repo & { readonly _tag: "Ready" }

/** Above this many changed notes, they are staged by folder glob rather than path by path (`update-index` inserts one at a time). */
const ManyPaths = 500

/**
 * Commits the notes matching `pathspecs` that differ from HEAD, and only
 * them: when the user has staged something else, `--only` leaves it staged
 * and out of the commit. Nothing changed, no commit. A window's few paths
 * go through `update-index` (no pathspec matching: `git add` of 10,000
 * literal paths took eight seconds), and the common commit skips the
 * untracked-file scan. Hooks that check a person's commit (`pre-commit`,
 * `commit-msg`) and signing (which may prompt) are skipped.
 */
export const commitScope = Effect.fnUntraced(function*(
  git: GitRunner,
  repo: Ready,
  pathspecs: ReadonlyArray<string>,
  reason: CommitReason,
  sessionId: string
) {
  // The folders of the glob pathspecs, walked as literal prefixes (git's `**` glob matching costs about 5 ms over
  // 10,000 notes), and their notes (`*.md`) picked out here; any other pathspec is passed as it is.
  const folders = pathspecs.flatMap((spec) => {
    const folder = pathspecFolder(spec)
    return folder === undefined ? [] : [folder]
  })
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
      "--no-renames",
      "--",
      ...statusSpecs
    ]),
    git(repo.toplevel, ["diff", "--cached", "--name-only", "--no-renames", "-z"])
  ], { concurrency: 2 })
  const changes = parseStatus(status.stdout).filter((change) =>
    change.path.endsWith(".md") || !folders.some((folder) => change.path.startsWith(`${folder}/`))
  )
  if (changes.length === 0) return Option.none<{ readonly message: string; readonly files: number }>()
  const ours = new Set(changes.map((change) => change.path))
  const staged = stagedOutput.stdout.split("\0").filter((p) => p !== "")
  // The globs of the folders that changed: `git add` of a few globs stays linear where many literal paths would not.
  const changedSpecs = pathspecs.filter((spec) => {
    const folder = pathspecFolder(spec)
    return folder === undefined || changes.some((change) => change.path.startsWith(`${folder}/`))
  })
  yield* ours.size <= ManyPaths
    ? git(repo.toplevel, ["update-index", "--add", "--remove", "-z", "--stdin"], [...ours].join("\0"))
    : git(repo.toplevel, ["add", "-A", "--", ...changedSpecs])
  const message = commitMessage(reason, sessionId, countChanges(changes))
  const commit = [...repo.identityArgs, "-c", "commit.gpgSign=false", "commit", "--no-verify", "-q", "-m", message]
  yield* staged.every((path) => ours.has(path))
    ? git(repo.toplevel, [...commit, "--untracked-files=no"])
    : git(repo.toplevel, [...commit, "--only", "--", ...changedSpecs])
  return Option.some({ message, files: changes.length })
})

/**
 * Brings the notes under `pathspecs` back to their state in `hash`, in the
 * index and the work tree: notes changed since return, notes added since go.
 * A folder neither side holds is left out (git refuses a pathspec that
 * matches nothing).
 */
export const restoreScope = Effect.fnUntraced(function*(git: GitRunner, repo: Ready, pathspecs: ReadonlyArray<string>, hash: string) {
  const known = [
    ...(yield* git(repo.toplevel, ["ls-files", "-z"])).stdout.split("\0"),
    ...(yield* git(repo.toplevel, ["ls-tree", "-r", "-z", "--name-only", hash])).stdout.split("\0")
  ]
  const held = pathspecs.filter((spec) => {
    const folder = pathspecFolder(spec)
    return folder !== undefined && known.some((path) => path.startsWith(`${folder}/`))
  })
  if (held.length > 0) yield* git(repo.toplevel, ["restore", `--source=${hash}`, "--staged", "--worktree", "--", ...held])
})
