import { Cause, Effect, Exit, FileSystem, Path } from "effect"
import { plural } from "../../domain/plural.ts"
import { parseNote } from "../../domain/notes/frontmatter.ts"
import type { CommitReason } from "../../domain/notes/versions.ts"
import type { NotesIdentity } from "../../domain/notes/identity.ts"
import { describeRepoState, type RepoState } from "../../domain/notes/repoState.ts"
import { type GitFailed, type GitRunner, VersionsUnavailable } from "../../services/NotesVersions.ts"
import type { NotesHomes } from "../../services/NotesHomes.ts"
import type { Trace } from "../../services/Trace.ts"
import { describeStoreFailure } from "../../services/notesStoreFailure.ts"
import { type HistoryScope, unavailable } from "./versionsScope.ts"
import { type CommitOutcome, commitScope, hidePaths, type Repo, restoreScope } from "./repo.ts"

/**
 * The steps of `/pi-context notes restore`: the notes as they are saved
 * first, then a note, a home or every home brought back, then the restore's
 * own commit. The caller holds the root's git lock throughout.
 */

type Ready = Repo & { readonly _tag: "Ready" }
type NotOnBranch = Exclude<RepoState, { readonly _tag: "OnBranch" }>

/** Why a restore or a tidy cannot commit now. */
export const notOnBranch = (state: NotOnBranch) =>
  `the notes root's git repository is ${describeRepoState(state)}; nothing is committed there until it is back on a branch.`

/** What a restore that outlasts the command's wait (many notes, or a commit ahead of it) says at once. */
export const restoreGoesOn = (what: string) =>
  `pi-context: the restore of ${what} takes longer than a moment (many notes, or a commit ahead of it); it goes on in the background, and you are told when it is done.`

/** What the user is told when that restore is done. */
export const restoredLater = (what: string, outcome: Exit.Exit<string, VersionsUnavailable>) =>
  Exit.match(outcome, {
    onSuccess: (text) => `pi-context: ${text}`,
    onFailure: (cause) => {
      const failure = Cause.squash(cause)
      return failure instanceof VersionsUnavailable ? failure.message : `pi-context: the restore of ${what} failed; /pi-context trace says why.`
    }
  })

export interface RestoreDeps {
  readonly git: GitRunner
  readonly homes: NotesHomes["Service"]
  readonly trace: Trace["Service"]
  readonly commitHomes: (repo: Ready, identity: NotesIdentity, reason: CommitReason, sessionId: string) => Effect.Effect<CommitOutcome, GitFailed>
  readonly run: (repo: Ready, args: ReadonlyArray<string>) => Effect.Effect<{ readonly stdout: string }, VersionsUnavailable>
  readonly headOf: (repo: Ready) => Effect.Effect<string, VersionsUnavailable>
  readonly platform: <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>) => Effect.Effect<A, E>
}

export const restoreSteps = ({ git, homes, trace, commitHomes, run, headOf, platform }: RestoreDeps) => {
  /**
   * Before a restore rewrites notes, the notes as they are (a hand edit not yet committed) become a commit of their
   * own, so the restore can itself be undone.
   */
  const saveBefore = (repo: Ready, identity: NotesIdentity, what: string, sessionId: string) =>
    commitHomes(repo, identity, { _tag: "BeforeRestore", address: what }, sessionId).pipe(
      Effect.mapError((error) =>
        unavailable(`pi-context: could not commit the notes as they are before restoring (${hidePaths(error.message, repo.toplevel)}); nothing was restored.`)
      ),
      Effect.flatMap((outcome) =>
        outcome._tag === "Waiting" ? Effect.fail(unavailable(`pi-context: ${notOnBranch(outcome.state)} Nothing was restored; run the restore again then.`)) : Effect.void
      )
    )

  /** The restore's own commit; `undefined` when the notes already matched. */
  const commitRestore = (repo: Ready, specs: ReadonlyArray<string>, what: string, hash: string, sessionId: string) =>
    platform(commitScope(git, repo, specs, { _tag: "Restore", address: what, from: hash }, sessionId)).pipe(
      Effect.mapError((error) => unavailable(`pi-context: restored ${what}, but could not commit it (${hidePaths(error.message, repo.toplevel)}).`)),
      Effect.flatMap((outcome) =>
        outcome._tag === "Waiting"
          ? Effect.fail(unavailable(`pi-context: restored ${what}, but ${notOnBranch(outcome.state)}`))
          : Effect.succeed(outcome._tag === "Committed" ? outcome : undefined)
      )
    )

  /** A home, or every home (`all`), back to a commit: one restore undoes a whole tidy. */
  const restoreHomes = (identity: NotesIdentity, repo: Ready, scope: HistoryScope, target: string, hash: string, sessionId: string) =>
    Effect.gen(function*() {
      const what = target === "all" ? "every home" : target
      yield* restoreScope(git, repo, scope.specs, hash).pipe(Effect.mapError((error) => unavailable(`pi-context: could not restore ${what}: ${hidePaths(error.message, repo.toplevel)}`)))
      const committed = yield* commitRestore(repo, scope.specs, what, hash, sessionId)
      yield* trace.info("history.restore", { from: hash.slice(0, 12), scope: target === "all" ? "all" : "home" })
      return committed !== undefined
        ? `Restored ${what} to ${hash.slice(0, 12)} (${plural(committed.files, "note")}); the restore is commit ${yield* headOf(repo)}.`
        : `${what} already matches ${hash.slice(0, 12)}; nothing to commit.`
    })

  const restoreNote = (repo: Ready, scope: HistoryScope, places: NonNullable<HistoryScope["places"]>, address: string, hash: string, sessionId: string) =>
    Effect.gen(function*() {
      const version = yield* run(repo, ["show", `${hash}:${places.live}`]).pipe(
        Effect.catch(() => run(repo, ["show", `${hash}:${places.retired}`])),
        Effect.mapError(() =>
          unavailable(`pi-context: ${address} has no version in commit ${hash.slice(0, 12)}; /pi-context notes versions ${address} lists the commits that hold it.`)
        )
      )
      const written = yield* homes.write(address, parseNote(version.stdout).body).pipe(
        Effect.mapError((error) => unavailable(`pi-context: could not restore ${address}: ${describeStoreFailure(error).text}`))
      )
      // A retired note that comes back leaves the wastebasket.
      yield* Effect.ignore(platform(Effect.flatMap(Effect.all([FileSystem.FileSystem, Path.Path]), ([fs, path]) => fs.remove(path.join(repo.toplevel, places.retired)))))
      const committed = yield* commitRestore(repo, scope.specs, written.address, hash, sessionId)
      yield* trace.info("history.restore", { from: hash.slice(0, 12) })
      return committed !== undefined
        ? `Restored ${written.address} to its version in ${hash.slice(0, 12)}; the restore is commit ${yield* headOf(repo)}.`
        : `${written.address} already matches its version in ${hash.slice(0, 12)}; nothing to commit.`
    })

  return { saveBefore, restoreHomes, restoreNote }
}
