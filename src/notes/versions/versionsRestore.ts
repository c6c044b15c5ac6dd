import { Cause, Effect, Exit, FileSystem, Path } from "effect"
import { parseNote } from "../frontmatter.ts"
import {
  noVersionIn,
  notOnBranch,
  restoredText,
  restoreFailed,
  restoreNotCommitted,
  restoreWaiting
} from "./versionsView.ts"
import { type GitRunner, VersionsUnavailable } from "./NotesVersions.ts"
import { NotesHomes } from "../NotesHomes.ts"
import { Trace } from "../../trace/Trace.ts"
import { describeStoreFailure } from "../notesStoreFailure.ts"
import { gitIn, headOf, type HistoryScope, unavailable } from "./versionsScope.ts"
import { commitScope, hidePaths, type Ready, restoreScope } from "./repo.ts"

/**
 * `/pi-context notes restore`, after the versions saved the notes as they
 * are: a note, a home or every home brought back to a commit, then the
 * restore's own commit. The caller holds the root's git lock throughout.
 */


/** What to bring back: the named scope, at the commit `hash`, for the session `sessionId`. */
export interface RestoreRequest {
  readonly git: GitRunner
  readonly repo: Ready
  readonly scope: HistoryScope
  /** What the user named: an address, a home, or `all`. */
  readonly target: string
  readonly hash: string
  readonly sessionId: string
}

/** The restore's own commit; `undefined` when the notes already matched. */
const commitRestore = ({ git, repo, scope, hash, sessionId }: RestoreRequest, what: string) =>
  commitScope(git, repo, scope.specs, { _tag: "Restore", address: what, from: hash }, sessionId).pipe(
    Effect.mapError((error) => unavailable(restoreNotCommitted(what, hidePaths(error.message, repo.toplevel)))),
    Effect.flatMap((outcome) =>
      outcome._tag === "Waiting"
        ? Effect.fail(unavailable(restoreWaiting(what, notOnBranch(outcome.state))))
        : Effect.succeed(outcome._tag === "Committed" ? outcome.files : undefined)
    )
  )

/** A home, or every home (`all`), back to a commit: one restore undoes a whole tidy. */
const restoreHomes = (request: RestoreRequest) =>
  Effect.gen(function*() {
    const { git, repo, scope, target, hash } = request
    const what = target === "all" ? "every home" : target
    yield* restoreScope(git, repo, scope.specs, hash).pipe(Effect.mapError((error) => unavailable(restoreFailed(what, hidePaths(error.message, repo.toplevel)))))
    const files = yield* commitRestore(request, what)
    yield* Trace.use((trace) => trace.info("history.restore", { from: hash.slice(0, 12), scope: target === "all" ? "all" : "home" }))
    return restoredText({ what, note: false, hash, files, head: files === undefined ? undefined : yield* headOf(git, repo) })
  })

const restoreNote = (request: RestoreRequest, places: NonNullable<HistoryScope["places"]>) =>
  Effect.gen(function*() {
    const { git, repo, target, hash } = request
    const version = yield* gitIn(git, repo, ["show", `${hash}:${places.live}`]).pipe(
      Effect.catch(() => gitIn(git, repo, ["show", `${hash}:${places.retired}`])),
      Effect.mapError(() => unavailable(noVersionIn(target, hash)))
    )
    const written = yield* NotesHomes.use((homes) => homes.write(target, parseNote(version.stdout).body)).pipe(
      Effect.mapError((error) => unavailable(restoreFailed(target, describeStoreFailure(error).text)))
    )
    // A retired note that comes back leaves the wastebasket.
    const [fs, path] = yield* Effect.all([FileSystem.FileSystem, Path.Path])
    yield* Effect.ignore(fs.remove(path.join(repo.toplevel, places.retired)))
    const files = yield* commitRestore(request, written.address)
    yield* Trace.use((trace) => trace.info("history.restore", { from: hash.slice(0, 12) }))
    return restoredText({ what: written.address, note: true, hash, files, head: files === undefined ? undefined : yield* headOf(git, repo) })
  })

/** Brings the request's scope back; the sentence that says what was restored. */
export const restoreScopeAt = (request: RestoreRequest) =>
  request.scope.places === undefined ? restoreHomes(request) : restoreNote(request, request.scope.places)

/** A restore finished in the background, as its view words it: done, refused with its sentence, or failed. */
export const laterOutcome = (outcome: Exit.Exit<string, VersionsUnavailable>) =>
  Exit.match(outcome, {
    onSuccess: (text) => ({ _tag: "Done", text }) as const,
    onFailure: (cause) => {
      const failure = Cause.squash(cause)
      return failure instanceof VersionsUnavailable ? { _tag: "Refused", text: failure.message } as const : { _tag: "Failed" } as const
    }
  })
