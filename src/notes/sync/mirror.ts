import { Data, Effect, FileSystem, Path } from "effect"
import {
  failureKind,
  isMissingBranch,
  type MergePlan,
  mergePlan,
  MirrorsFolder,
  parseRawDiff,
  parseTree,
  sidesOfChanges,
  type SkippedPath
} from "./syncPlan.ts"
import type { SyncFailureKind } from "./syncTypes.ts"
import type { GitFailed, GitRunner } from "../versions/NotesVersions.ts"
import { PiContextAuthor } from "../versions/repo.ts"
import { compactStamp } from "../identity.ts"

/**
 * A remote's mirror: a git repository of pi-context's own under the notes
 * root's `.sync/`, whose tree holds the synced homes at the paths every
 * machine shares. The homes are copied in and out of it (copy.ts); here are
 * its git steps. The remote's URL is handed to git for each fetch and push
 * and never written into the mirror's config: pi-context stores no secret.
 */

/** A sync step that did not succeed, in git's words (not yet redacted: the engine redacts before anything shows it). */
export class SyncStepFailed extends Data.TaggedError("SyncStepFailed")<{
  readonly kind: SyncFailureKind
  readonly detail: string
}> {}

/** Another Pi on this machine is syncing the same mirror: this round is skipped, the next one catches up. */
export class MirrorBusy extends Data.TaggedError("MirrorBusy")<{}> {}

export const stepFailed = (error: GitFailed): SyncStepFailed =>
  new SyncStepFailed({ kind: failureKind(error.reason, error.detail), detail: error.detail })

/** A file-system step of a round that failed. */
export const ioFailed = (error: { readonly message: string }): SyncStepFailed => new SyncStepFailed({ kind: "other", detail: error.message })

/** The remote's branch as last fetched. */
const RemoteRef = "refs/pi-context/remote"
/** The remote's commit this mirror last merged or pushed: a remote branch that no longer contains it was rewritten. */
const PulledRef = "refs/pi-context/pulled"
const BackupRefPrefix = "refs/pi-context/backup/"
/** Set while the remote is diverged: the backup ref written for it, so one divergence writes one backup. */
const DivergedKey = "pi-context.diverged"

export interface Mirror {
  readonly dir: string
  /** Local git runs. */
  readonly git: GitRunner
  /** Fetch and push, cut at the round's budget. */
  readonly network: GitRunner
  /** As the user wrote it: only ever an argument to git. */
  readonly url: string
  readonly branch: string
  readonly identityArgs: ReadonlyArray<string>
}

const run = (mirror: Mirror, args: ReadonlyArray<string>, stdin?: string) =>
  mirror.git(mirror.dir, args, stdin).pipe(Effect.mapError(stepFailed))

/** What a local git run printed, trimmed; undefined when it printed nothing or failed. */
const outputOf = (mirror: Mirror, args: ReadonlyArray<string>) =>
  mirror.git(mirror.dir, args).pipe(
    Effect.map(({ stdout }): string | undefined => stdout.trim() || undefined),
    Effect.orElseSucceed((): string | undefined => undefined)
  )

/**
 * A fetch and a merge start `git maintenance run --auto` after them, a
 * process of its own that costs more than the step: a mirror is tiny and
 * never needs it.
 */
const NoMaintenance = ["-c", "maintenance.auto=false"]

/** Never asks: no credential prompt (git 2.46 and later read this; older ones ignore it). */
const NoPrompt = ["-c", "credential.interactive=never", ...NoMaintenance]

/** The mirror's folder, created with its repository when missing; the folder of mirrors is ignored by the root's own repository. */
/** What opening a mirror takes: the notes root, the mirror's folder name, the gits and the remote. */
export type MirrorOptions = Omit<Mirror, "dir" | "identityArgs"> & { readonly root: string; readonly name: string }

export const openMirror = Effect.fnUntraced(function*(options: MirrorOptions) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const folder = path.join(options.root, MirrorsFolder)
  const dir = path.join(folder, options.name)
  yield* fs.makeDirectory(dir, { recursive: true }).pipe(Effect.mapError(ioFailed))
  const ignore = path.join(folder, ".gitignore")
  if (!(yield* fs.exists(ignore).pipe(Effect.orElseSucceed(() => false)))) {
    // `*` ignores the folder's every file, this one included: the notes root's repository never sees a mirror.
    yield* fs.writeFileString(ignore, "*\n").pipe(Effect.mapError(ioFailed))
  }
  const git = (args: ReadonlyArray<string>) => options.git(dir, args).pipe(Effect.mapError(stepFailed))
  if (!(yield* fs.exists(path.join(dir, ".git")).pipe(Effect.orElseSucceed(() => false)))) {
    yield* git(["init", "-q"])
    yield* git(["symbolic-ref", "HEAD", `refs/heads/${options.branch}`])
    yield* git(["config", "core.autocrlf", "false"])
    yield* git(["config", "gc.auto", "0"])
    // Thousands of small files: a smaller index, as the notes root's own repository has.
    yield* git(["config", "feature.manyFiles", "true"])
  }
  const identityKeys = yield* options.git(dir, ["config", "--name-only", "--get-regexp", "^user\\.(name|email)$"]).pipe(
    Effect.map(({ stdout }) => new Set(stdout.split("\n").map((key) => key.trim()))),
    Effect.orElseSucceed(() => new Set<string>())
  )
  const hasIdentity = identityKeys.has("user.name") && identityKeys.has("user.email")
  const mirror: Mirror = {
    dir,
    git: options.git,
    network: options.network,
    url: options.url,
    branch: options.branch,
    identityArgs: hasIdentity ? [] : ["-c", `user.name=${PiContextAuthor.name}`, "-c", `user.email=${PiContextAuthor.email}`]
  }
  return mirror
})

/** The commit `ref` names, if any. */
export const revision = (mirror: Mirror, ref: string) => outputOf(mirror, ["rev-parse", "--verify", "-q", `${ref}^{commit}`])

export const headOf = (mirror: Mirror) => revision(mirror, "HEAD")

/** A round cut short (the budget, Pi's exit) may have left a half copy or a merge: the work tree goes back to HEAD. */
export const tidy = Effect.fnUntraced(function*(mirror: Mirror) {
  // Left by a git this process ended; no other git works in the mirror while its lock is held.
  yield* Effect.ignore(FileSystem.FileSystem.use((fs) => fs.remove(`${mirror.dir}/.git/index.lock`)))
  if ((yield* headOf(mirror)) === undefined) yield* run(mirror, ["read-tree", "--empty"])
  else yield* run(mirror, ["reset", "-q", "--hard", "HEAD"])
  yield* run(mirror, ["clean", "-fdxq"])
})

/** Fetches the remote's branch into `refsOf`'s `remote`; false when the remote has no such branch yet. */
export const fetchRemote = Effect.fnUntraced(function*(mirror: Mirror) {
  yield* Effect.ignore(run(mirror, ["update-ref", "-d", RemoteRef]))
  const fetched = yield* Effect.result(
    mirror.network(mirror.dir, [...NoPrompt, "fetch", "--quiet", "--no-tags", "--", mirror.url, `+refs/heads/${mirror.branch}:${RemoteRef}`])
  )
  if (fetched._tag === "Failure") {
    if (isMissingBranch(fetched.failure.detail)) return false
    return yield* stepFailed(fetched.failure)
  }
  return true
})

/** The mirror's branch, the remote's commit it last merged or pushed, and the remote's branch as fetched, in one git run. */
export const refsOf = (mirror: Mirror) =>
  Effect.map(run(mirror, ["for-each-ref", "--format=%(refname) %(objectname)", `refs/heads/${mirror.branch}`, PulledRef, RemoteRef]), ({ stdout }) => {
    const refs = new Map(stdout.split("\n").flatMap((line) => {
      const [name, hash] = line.split(" ")
      return name === undefined || hash === undefined ? [] : [[name, hash] as const]
    }))
    return { head: refs.get(`refs/heads/${mirror.branch}`), pulled: refs.get(PulledRef), remote: refs.get(RemoteRef) }
  })

/** A fresh mirror starts from the remote's branch, so this machine's notes are compared with what is there. */
export const startFrom = (mirror: Mirror, tip: string) =>
  Effect.andThen(run(mirror, ["reset", "-q", "--hard", tip]), run(mirror, ["update-ref", PulledRef, tip]))

export const isAncestor = (mirror: Mirror, ancestor: string, of: string) =>
  ancestor === of ? Effect.succeed(true) : mirror.git(mirror.dir, ["merge-base", "--is-ancestor", ancestor, of]).pipe(Effect.as(true), Effect.orElseSucceed(() => false))

/**
 * Commits the notes at `keys` as the work tree has them (written or
 * deleted); the new HEAD. Through git's plumbing: a plain `commit` would stat
 * every note of the mirror first.
 */
export const commitPaths = Effect.fnUntraced(function*(mirror: Mirror, head: string | undefined, keys: ReadonlyArray<string>, message: string) {
  yield* run(mirror, ["update-index", "--add", "--remove", "-z", "--stdin"], keys.join("\0"))
  const tree = (yield* run(mirror, ["write-tree"])).stdout.trim()
  const parents = head === undefined ? [] : ["-p", head]
  const commit = (yield* run(mirror, [...mirror.identityArgs, "-c", "commit.gpgSign=false", "commit-tree", tree, ...parents, "-m", message])).stdout.trim()
  yield* run(mirror, ["update-ref", `refs/heads/${mirror.branch}`, commit, ...(head === undefined ? [] : [head])])
  return commit
})

/** A commit's notes by path, with their blobs; what is no note (a link, a submodule, an odd name) goes to `skipped`. */
export const treeOf = (mirror: Mirror, rev: string | undefined, skipped?: Array<SkippedPath>) =>
  rev === undefined
    ? Effect.succeed(new Map<string, string>() as ReadonlyMap<string, string>)
    : Effect.map(run(mirror, ["ls-tree", "-r", "-z", "--full-tree", rev]), ({ stdout }) => parseTree(stdout, skipped))

/** A blob's text: the remote's side of a conflict. */
export const blobText = (mirror: Mirror, blob: string) => Effect.map(run(mirror, ["cat-file", "blob", blob]), ({ stdout }) => stdout)

const withPaths = (mirror: Mirror, args: ReadonlyArray<string>, paths: ReadonlyArray<string>) =>
  paths.length === 0 ? Effect.void : run(mirror, ["--literal-pathspecs", ...args, "--pathspec-from-file=-", "--pathspec-file-nul"], paths.join("\0"))

/**
 * Joins the remote's `tip` into HEAD by `mergePlan`: the merge commit holds
 * this machine's tree with the remote's own changes laid over it, and the
 * notes both changed keep this machine's text. Unrelated histories (a
 * remote another machine started, or one rewritten) are joined the same way.
 * A tip HEAD already holds is no merge. The plan, and HEAD after.
 */
export const mergeRemote = Effect.fnUntraced(function*(mirror: Mirror, head: string, tip: string, keepOurs: boolean) {
  const base = yield* outputOf(mirror, ["merge-base", head, tip])
  if (base === tip) return { plan: mergePlan(new Map(), new Map(), new Map(), keepOurs), head }
  const changes = (from: string, to: string) =>
    from === to ? Effect.succeed([]) : Effect.map(run(mirror, ["diff-tree", "-r", "-z", "--no-renames", from, to]), ({ stdout }) => parseRawDiff(stdout))
  // Related histories: only the notes either side changed since the merge base; unrelated ones: both whole trees.
  const sides = base === undefined
    ? { base: new Map<string, string>(), ours: yield* treeOf(mirror, head), theirs: yield* treeOf(mirror, tip) }
    : sidesOfChanges(yield* changes(base, head), yield* changes(base, tip))
  const plan: MergePlan = mergePlan(sides.base, sides.ours, sides.theirs, keepOurs)
  if (base === head) {
    yield* run(mirror, [...NoMaintenance, ...mirror.identityArgs, "merge", "-q", "--ff-only", tip])
    return { plan, head: tip }
  } else {
    yield* run(mirror, [...NoMaintenance, ...mirror.identityArgs, "merge", "-q", "--no-ff", "--no-commit", "--allow-unrelated-histories", "-s", "ours", tip])
    yield* withPaths(mirror, ["checkout", tip], plan.fromTheirs)
    yield* withPaths(mirror, ["rm", "-q"], plan.deleted)
    // Each note this machine kept over the remote's text is named, so the machine whose edit lost is told when it pulls.
    const kept = plan.conflicts.map((conflict) => `\n${KeptOverTrailer}: ${conflict.path}`).join("")
    yield* run(mirror, [...NoMaintenance, ...mirror.identityArgs, "-c", "commit.gpgSign=false", "commit", "--no-verify", "-q", "-m", `pi-context sync: merge ${mirror.branch}${kept === "" ? "" : `\n${kept}`}`])
  }
  return { plan, head: (yield* headOf(mirror)) ?? head }
})

/** The trailer of a merge commit naming a note whose text the merging machine kept over the remote's. */
export const KeptOverTrailer = "Pi-Context-Kept-Over"

/**
 * The notes whose text this machine pushed and the remote then overruled: another machine changed them too, kept
 * its own text in its merge (naming them in its commit), and holds this machine's as a conflict copy. Each with this
 * machine's last commit of it, where its text still is. Read before this machine merges `tip`.
 */
export const overruledHere = Effect.fnUntraced(function*(mirror: Mirror, head: string, tip: string) {
  const messages = yield* run(mirror, ["log", "--format=%B", `${head}..${tip}`])
  const paths = [...new Set([...messages.stdout.matchAll(new RegExp(`^${KeptOverTrailer}: (.+)$`, "gm"))].map((match) => match[1]!.trim()))]
  const overruled: Array<{ readonly path: string; readonly commit: string }> = []
  for (const path of paths) {
    const commit = (yield* run(mirror, ["log", "-1", "--format=%h", head, "--", path])).stdout.trim()
    // Only an edit of this machine's that the other side saw: its commit is in the remote's history.
    if (commit !== "" && (yield* isAncestor(mirror, commit, tip))) overruled.push({ path, commit })
  }
  return overruled
})

/** The remote's `tip` is in HEAD now. */
export const markPulled = (mirror: Mirror, tip: string) => run(mirror, ["update-ref", PulledRef, tip])

/** Pushes HEAD to the remote's branch, never forced; the remote now holds it. */
export const pushHead = Effect.fnUntraced(function*(mirror: Mirror, head: string) {
  yield* mirror.network(mirror.dir, [...NoPrompt, "push", "--quiet", "--", mirror.url, `${head}:refs/heads/${mirror.branch}`]).pipe(
    Effect.mapError(stepFailed)
  )
  yield* run(mirror, ["update-ref", "--stdin"], `update ${PulledRef} ${head}\nupdate ${RemoteRef} ${head}\n`)
})

/** Local commits the remote lacks, and the remote's commits not merged here. */
export const aheadBehind = (mirror: Mirror, head: string | undefined, tip: string | undefined) => {
  if (head === undefined) return Effect.succeed({ ahead: 0, behind: tip === undefined ? 0 : undefined })
  if (head === tip) return Effect.succeed({ ahead: 0, behind: 0 })
  if (tip === undefined) return Effect.map(run(mirror, ["rev-list", "--count", head]), ({ stdout }) => ({ ahead: Number(stdout.trim()), behind: 0 }))
  return run(mirror, ["rev-list", "--left-right", "--count", `${head}...${tip}`]).pipe(
    Effect.map(({ stdout }) => {
      const [ahead, behind] = stdout.trim().split(/\s+/).map(Number)
      return { ahead, behind }
    })
  )
}

/** The backup ref of the current divergence: written once, when it is first seen. */
export const backUpDiverged = Effect.fnUntraced(function*(mirror: Mirror, head: string | undefined, atMs: number) {
  const known = yield* outputOf(mirror, ["config", "--get", DivergedKey])
  if (known !== undefined) return known
  const ref = `${BackupRefPrefix}${compactStamp(atMs)}`
  if (head !== undefined) yield* run(mirror, ["update-ref", ref, head])
  yield* run(mirror, ["config", DivergedKey, ref])
  return ref
})

/** The divergence the user's command resolved: merged, so the remote's branch holds this machine's commits again. */
export const divergenceResolved = (mirror: Mirror) => Effect.ignore(mirror.git(mirror.dir, ["config", "--unset", DivergedKey]))
