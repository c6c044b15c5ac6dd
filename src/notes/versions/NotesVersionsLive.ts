import { Effect, FiberSet, FileSystem, Layer, Option, Path, Schedule } from "effect"
import {
  commitReasonText,
  type CommitReason,
  describePath,
  historyHomes,
  homePathspecs,
  type HistoryLayout,
  LogFormat,
  parseLog,
  renderHistory,
  SessionLogFormat,
  SessionTrailer,
  shortSessionId
} from "./versions.ts"
import { formatAddress } from "../../kernel/homes.ts"
import { describeRepoState, ignoredNotesText, waitingNotice } from "./repoState.ts"
import { windowNoteChanges } from "./windowChanges.ts"
import type { NotesIdentity } from "../identity.ts"
import { type GitFailed, type GitRunner, NotesVersions, type VersionsUnavailable } from "./NotesVersions.ts"
import { Notices } from "../../kernel/Notices.ts"
import { PiSession } from "../../kernel/PiSession.ts"
import { Trace } from "../../trace/Trace.ts"
import { NotesHomes } from "../NotesHomes.ts"
import { Window } from "../../window/Window.ts"
import { systemGit } from "./git.ts"
import { gitIn, headOf, resolveCommit, scopeOf, unavailable } from "./versionsScope.ts"
import { laterOutcome, restoreScopeAt } from "./versionsRestore.ts"
import * as NotesHomesLive from "../NotesHomesLive.ts"
import * as Platform from "../../kernel/platform.ts"
import * as NoticesLive from "../../kernel/NoticesLive.ts"
import * as TraceLive from "../../trace/TraceLive.ts"
import * as WindowLive from "../../window/WindowLive.ts"
import { answerWithin } from "./answerWithin.ts"
import { makeRootLocks } from "./rootLocks.ts"
import { type CommitOutcome, commitScope, hidePaths, ignoredNotes, ignoreRule, openRepo, type Ready, type Repo, stateOf } from "./repo.ts"
import {
  commitFailed,
  commitFailedNotice,
  firstCommitRunning,
  ignoredByGitNotice,
  noNotesYet,
  notOnBranch,
  notSavedBeforeRestore,
  noVersionsYet,
  restoredLater,
  restoreGoesOn,
  restoreWaitsForBranch,
  stillBeingWritten,
  stillCommitting,
  versionsDoctorLine,
  versionsOff,
  versionsOffNotice
} from "./versionsView.ts"

/**
 * Why the system `git` and not isomorphic-git: measured side by side on this
 * project's (loaded) machine, for a window commit of 20 changed notes in a
 * 10,000-note root, git finds, stages and commits them (status, a staged-files
 * check, update-index, commit) in a median 165 ms, where isomorphic-git needs
 * 212 ms for add and commit with the paths already known, plus 821 ms for the
 * status that finds them (every note hashed in JavaScript); the first commit
 * of 10,000 notes took it 6.7 s (git: 0.4 s). pi-context's own repository
 * (feature.manyFiles) brings git to 86-109 ms in bench/notes.ts. It would also
 * add a sizeable dependency to Pi's start-up, and git brings the user's own
 * identity, config and repository as they are. Without git on PATH the
 * history is off, with one notice, and notes work exactly as before.
 */

const HistoryLimit = 30
/** The windows view reads at most this many of the session's commits. */
const SessionCommitLimit = 200
/** How long the session's log may take before the windows view and `history_windows` go without their history line. */
const SessionLogBudgetMs = 2_000
/** How long a history command waits for the commits in flight before it shows what is committed. */
const CommandCommitWaitMs = 5_000
const DiffCharLimit = 16_000


const layoutOf = (repo: Ready, identity: NotesIdentity): HistoryLayout => ({ prefix: repo.prefix, identity })

/** Another git (another Pi, the user) holds the repository's lock for a moment: worth a retry. */
const isLockContention = (error: GitFailed): boolean => /\.lock\b.*(exists|File exists)|Unable to create .*\.lock/i.test(error.detail)

/** How long `/pi-context doctor` waits for its turn at the repository before saying a commit is being written. */
const DescribeWaitMs = 1_000

export const layerWith = (git: GitRunner) =>
  Layer.effect(
    NotesVersions,
    Effect.gen(function*() {
      const homes = yield* NotesHomes
      const trace = yield* Trace
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const fibers = yield* FiberSet.make<void, never>()
      const repos = new Map<string, Repo>()
      const { serialized, serializedWithin } = makeRootLocks()
      const notices = yield* Notices
      /** Window ids whose commit is queued or running, with how many. */
      const pending = new Map<string, number>()
      /** Window ids whose commit waited on a repository not on a branch, with why; until a commit goes through. */
      const waiting = new Map<string, string>()
      const platform = Platform.withPlatform(fs, path)

      const { tellOnce } = notices

      /** The root's repository, opened once (an off root stays off until Pi restarts); not yet when the root is missing. */
      const repoFor = (root: string, create: boolean) =>
        Effect.gen(function*() {
          const known = repos.get(root)
          if (known !== undefined) return known
          const repo = yield* platform(openRepo(git, root, create))
          if (repo._tag === "NotYet") return repo
          repos.set(root, repo)
          if (repo._tag === "Off") {
            yield* trace.info("history.off", { reason: repo.reason })
            yield* tellOnce(`off:${root}`, versionsOffNotice(repo.reason))
          } else {
            yield* trace.info("history.opened", { owned: repo.owned, nested: repo.prefix !== "" })
          }
          return repo
        })

      /** A repository already open needs no turn at the lock: a read never waits behind a commit to find it. */
      const knownOrOpen = (root: string) => Effect.suspend(() => {
        const known = repos.get(root)
        return known !== undefined ? Effect.succeed(known) : serialized(root, repoFor(root, false))
      })

      /**
       * The repository as it is, for a read that must not wait behind a commit: opened outside the lock and not kept
       * (a repository this process is creating may not be fully configured yet; a read only needs where it is).
       */
      const peekRepo = (root: string) => Effect.suspend(() => {
        const known = repos.get(root)
        return known !== undefined ? Effect.succeed(known) : platform(openRepo(git, root, false))
      })

      /** The notices a commit's outcome owes: a repository it waited on (once per such spell), notes git ignores (once). */
      const noticeOutcome = (repo: Ready, identity: NotesIdentity, outcome: CommitOutcome) =>
        Effect.gen(function*() {
          const waitingKey = `waiting:${identity.root}`
          if (outcome._tag === "Waiting") {
            yield* trace.info("history.waiting", { state: outcome.state._tag === "Busy" ? outcome.state.operation : "detached" })
            return yield* tellOnce(waitingKey, waitingNotice(outcome.state))
          }
          yield* notices.forget(waitingKey)
          const example = outcome.ignored[0]
          if (example === undefined || (yield* notices.wasTold(`ignored:${identity.root}`))) return
          const rule = yield* ignoreRule(git, repo, example)
          yield* tellOnce(`ignored:${identity.root}`, ignoredByGitNotice(rule, describePath(layoutOf(repo, identity), example)))
        })

      /** Commits every home's changed notes now, with the notices the outcome owes. */
      const commitHomes = (repo: Ready, identity: NotesIdentity, reason: CommitReason, sessionId: string) =>
        platform(commitScope(git, repo, homePathspecs(layoutOf(repo, identity), historyHomes(identity)), reason, sessionId)).pipe(
          Effect.retry({ times: 4, schedule: Schedule.spaced("150 millis"), while: isLockContention }),
          Effect.tap((outcome) => noticeOutcome(repo, identity, outcome))
        )

      /** Commits `identity`'s changed notes for `reason`; what goes wrong is traced and told, never failed. */
      const commitOf = (identity: NotesIdentity, sessionId: string, reason: CommitReason) =>
        serialized(identity.root, Effect.gen(function*() {
          const repo = yield* repoFor(identity.root, true)
          if (repo._tag !== "Ready") return
          const outcome = yield* commitHomes(repo, identity, reason, sessionId)
          if (outcome._tag === "Committed") yield* trace.info("history.commit", { files: outcome.files, reason: commitReasonText(reason) })
          if (outcome._tag !== "Waiting") waiting.clear()
          else if (reason._tag === "Window" || reason._tag === "Shutdown") waiting.set(reason.windowId, describeRepoState(outcome.state))
        }).pipe(
          Effect.catchTag("GitFailed", (error) =>
            Effect.andThen(
              trace.info("history.commit-failed", { reason: error.message }),
              tellOnce(`commit:${identity.root}`, commitFailedNotice(hidePaths(error.message, identity.root)))
            ))
        )).pipe(Effect.catchCause((cause) => trace.info("history.failed", { cause: String(cause).slice(0, 500) })))

      const track = (windowId: string, by: 1 | -1) =>
        Effect.sync(() => {
          const count = (pending.get(windowId) ?? 0) + by
          if (count > 0) pending.set(windowId, count)
          else pending.delete(windowId)
        })

      /**
       * Forked into the layer's fiber set, after the hook returns: a hook never
       * waits on git. Which notes root and session it commits for is read at
       * the event, since Pi's context may be stale by the time it runs. The
       * commit holds the homes as they are when it runs, tens of milliseconds
       * after the boundary: a note written in the next window before then (no
       * model answers that fast) lands in it too.
       */
      const fork = (reason: CommitReason & { readonly windowId: string }) =>
        Effect.gen(function*() {
          const session = yield* PiSession
          const identity = yield* homes.identity
          yield* track(reason.windowId, 1)
          yield* FiberSet.run(fibers, { startImmediately: false })(commitOf(identity, session.sessionId, reason).pipe(Effect.ensuring(track(reason.windowId, -1))))
        }).pipe(Effect.catchCause((cause) => trace.info("history.failed", { cause: String(cause).slice(0, 500) })))

      const flush = FiberSet.awaitEmpty(fibers)

      // A window's notes are committed for its id when the Window room says it ended.
      yield* (yield* Window).subscribe((event) =>
        event._tag !== "WindowEnded" ? Effect.void : fork({ _tag: event.reason === "session-end" ? "Shutdown" : "Window", windowId: event.id, ordinal: event.ordinal })
      )

      /** Waits for the commits in flight at most `waitMs`; whether some are still running. */
      const settle = (waitMs: number) =>
        waitMs <= 0 ? Effect.sync(() => pending.size > 0) : Effect.map(Effect.timeoutOption(flush, waitMs), Option.isNone)

      /** The identity and a ready repository, or the sentence saying why there is no history; `committing` when a commit is still running. */
      const readyRepo = Effect.gen(function*() {
        const committing = yield* settle(CommandCommitWaitMs)
        const identity = yield* homes.identity
        const found = yield* Effect.timeoutOption(knownOrOpen(identity.root), CommandCommitWaitMs)
        if (Option.isNone(found)) return yield* unavailable(firstCommitRunning)
        const repo = found.value
        if (repo._tag === "NotYet") return yield* unavailable(noVersionsYet)
        if (repo._tag === "Off") return yield* unavailable(versionsOff(repo.reason))
        return { identity, repo, committing }
      })

      const run = (repo: Ready, args: ReadonlyArray<string>, stdin?: string) => gitIn(git, repo, args, stdin)

      const history = (target: string | undefined) =>
        Effect.gen(function*() {
          const { identity, repo, committing } = yield* readyRepo
          const layout = layoutOf(repo, identity)
          const scope = yield* scopeOf(layout, target)
          const log = yield* run(repo, ["-c", "core.quotePath=false", "log", "-n", String(HistoryLimit), `--format=${LogFormat}`, "--name-status", "--no-renames", "--", ...scope.specs])
            .pipe(Effect.catch(() => Effect.succeed({ stdout: "" })))
          return `${renderHistory(layout, scope.title, parseLog(log.stdout), HistoryLimit)}${committing ? stillCommitting : ""}`
        })

      /**
       * The session's own window commits only (`--grep` before `-n`): a shared repository's other commits never crowd
       * them out. The trailer names the session in full; the subject's short name finds the commits made before the
       * trailers, and another session's with the same short name, which tells that the short name is shared. The
       * commits in flight are waited for at most `waitForCommitsMs`; the windows whose commit is still running are
       * named as pending.
       */
      const sessionChanges = ({ logBudgetMs = SessionLogBudgetMs, waitForCommitsMs }: { readonly waitForCommitsMs: number; readonly logBudgetMs?: number }) =>
        Effect.gen(function*() {
          const session = yield* PiSession
          yield* settle(waitForCommitsMs)
          const identity = yield* homes.identity
          const repo = yield* peekRepo(identity.root)
          if (repo._tag !== "Ready") return Option.none()
          const layout = layoutOf(repo, identity)
          const log = yield* git(repo.toplevel, [
            "-c",
            "core.quotePath=false",
            "log",
            "-n",
            String(SessionCommitLimit),
            "--fixed-strings",
            `--grep=${SessionTrailer}: ${session.sessionId}`,
            `--grep=of session ${shortSessionId(session.sessionId)}`,
            `--format=${SessionLogFormat}`,
            "--name-status",
            "--no-renames"
          ]).pipe(Effect.orElseSucceed(() => ({ stdout: "" })))
          return Option.some({
            byWindow: windowNoteChanges(parseLog(log.stdout), session.sessionId, (p) => describePath(layout, p)),
            pending: new Set(pending.keys()) as ReadonlySet<string>,
            waiting: new Map(waiting) as ReadonlyMap<string, string>
          })
        }).pipe(
          // A git that hangs leaves the view without its history line rather than holding history_windows past its budget.
          Effect.timeoutOption(waitForCommitsMs + logBudgetMs),
          Effect.map(Option.flatten),
          Effect.catchCause(() => Effect.succeed(Option.none()))
        )

      const diff = (commit: string, address: string | undefined) =>
        Effect.gen(function*() {
          const { identity, repo, committing } = yield* readyRepo
          const scope = yield* scopeOf(layoutOf(repo, identity), address)
          const hash = yield* resolveCommit((args) => run(repo, args), commit)
          const shown = yield* run(repo, ["-c", "core.quotePath=false", "show", "--no-color", "--format=commit %h  %aI%n%s%n", hash, "--", ...scope.specs])
          const text = shown.stdout.trimEnd()
          if (text === "") {
            return address === undefined
              ? `Commit ${hash.slice(0, 12)} changed no notes.`
              : `Commit ${hash.slice(0, 12)} did not change ${address}; /pi-context notes versions ${address} lists the commits that did.`
          }
          const cut = text.length <= DiffCharLimit
            ? text
            : `${text.slice(0, DiffCharLimit)}\n… (diff cut at ${DiffCharLimit} characters; name one note to see less: /pi-context notes diff ${commit} <address>)`
          return `${cut}${committing ? stillCommitting : ""}`
        })

      /**
       * Before a restore rewrites notes, the notes as they are (a hand edit not yet committed) become a commit of their
       * own, so the restore can itself be undone.
       */
      const saveBefore = (repo: Ready, identity: NotesIdentity, what: string, sessionId: string) =>
        commitHomes(repo, identity, { _tag: "BeforeRestore", address: what }, sessionId).pipe(
          Effect.mapError((error) => unavailable(notSavedBeforeRestore(hidePaths(error.message, repo.toplevel)))),
          Effect.flatMap((outcome) => outcome._tag === "Waiting" ? Effect.fail(unavailable(restoreWaitsForBranch(notOnBranch(outcome.state)))) : Effect.void)
        )

      const restore = (target: string, commit: string): Effect.Effect<string, VersionsUnavailable, PiSession> =>
        Effect.gen(function*() {
          const session = yield* PiSession
          const { identity, repo } = yield* readyRepo
          const scope = yield* scopeOf(layoutOf(repo, identity), target === "all" ? undefined : target)
          const what = scope.address === undefined ? (target === "all" ? "every home" : target) : formatAddress(scope.address)
          // A restore of a large home (three commits of thousands of notes) may outlast a command's wait, as may a
          // commit ahead of it at the repository: then it finishes in the background and the user is told.
          const work = serialized(identity.root, Effect.gen(function*() {
            const hash = yield* resolveCommit((args) => run(repo, args), commit)
            yield* saveBefore(repo, identity, what, session.sessionId)
            return yield* restoreScopeAt({ git, repo, scope, target, hash, sessionId: session.sessionId }).pipe(
              Effect.provideService(NotesHomes, homes),
              Effect.provideService(Trace, trace),
              Effect.provideService(FileSystem.FileSystem, fs),
              Effect.provideService(Path.Path, path)
            )
          }))
          const answer = yield* answerWithin(fibers, work, CommandCommitWaitMs, (outcome) => notices.tell(restoredLater(what, laterOutcome(outcome))))
          if (Option.isNone(answer)) return restoreGoesOn(what)
          return yield* answer.value
        })

      /**
       * Takes its turn at the repository after the commits already forked (so a window's notes stay its own) and
       * commits; the caller waits at most `CommandCommitWaitMs`. The commit runs in the layer's fiber set, so one that
       * outlasts the wait (a first commit of many notes) still lands while the user is told.
       */
      const commitNowFor = (reason: CommitReason, address?: string) =>
        Effect.gen(function*() {
          const session = yield* PiSession
          const identity = yield* homes.identity
          const answer = yield* answerWithin(fibers, commitAtTurn(identity, reason, session.sessionId, address), CommandCommitWaitMs, () => Effect.void)
          return yield* Option.isSome(answer) ? answer.value : Effect.fail(unavailable(stillBeingWritten))
        })

      /** Every home's changes, or only the note at `address` (which then must be in a commit, so not ignored by git). */
      const commitAtTurn = (identity: NotesIdentity, reason: CommitReason, sessionId: string, address?: string) =>
        serialized(identity.root, Effect.gen(function*() {
          const repo = yield* repoFor(identity.root, true)
          if (repo._tag === "NotYet") return yield* unavailable(noNotesYet)
          if (repo._tag === "Off") return yield* unavailable(versionsOff(repo.reason))
          const specs = address === undefined ? undefined : (yield* scopeOf(layoutOf(repo, identity), address)).specs
          const outcome = yield* (specs === undefined ? commitHomes(repo, identity, reason, sessionId) : platform(commitScope(git, repo, specs, reason, sessionId))).pipe(
            Effect.mapError((error) => unavailable(commitFailed(hidePaths(error.message, repo.toplevel))))
          )
          if (outcome._tag === "Waiting") return yield* unavailable(`pi-context: ${notOnBranch(outcome.state)}`)
          if (address !== undefined && outcome.ignored.length > 0) return yield* unavailable(`pi-context: git ignores ${address}, so no version of it can be kept.`)
          return yield* headOf(git, repo)
        }))

      const describe = Effect.gen(function*() {
        const identity = yield* homes.identity
        const repo = yield* serializedWithin(identity.root, DescribeWaitMs, repoFor(identity.root, false), Effect.succeed({ _tag: "Busy" } as const))
        if (repo._tag !== "Ready") return versionsDoctorLine(repo)
        const state = yield* platform(stateOf(repo))
        const ignored = yield* ignoredNotes(git, repo, homePathspecs(layoutOf(repo, identity), historyHomes(identity))).pipe(Effect.orElseSucceed(() => []))
        const example = ignored[0]
        return versionsDoctorLine({
          _tag: "Ready",
          owned: repo.owned,
          inProject: identity.projectDir !== undefined,
          waiting: state._tag === "OnBranch" ? undefined : describeRepoState(state),
          ignored: example === undefined
            ? undefined
            : ignoredNotesText({ count: ignored.length, rule: yield* ignoreRule(git, repo, example), example: describePath(layoutOf(repo, identity), example) })
        })
      }).pipe(Effect.catchCause(() => Effect.succeed(versionsDoctorLine({ _tag: "Unknown" }))))

      const offered = Effect.gen(function*() {
        const identity = yield* homes.identity
        return (yield* knownOrOpen(identity.root))._tag === "Ready"
      }).pipe(Effect.catchCause(() => Effect.succeed(false)))

      return NotesVersions.of({
        offered,
        awaitCommits: (timeoutMs) => Effect.asVoid(Effect.timeoutOption(flush, timeoutMs)),
        history,
        diff,
        restore,
        commitNow: commitNowFor,
        keepNote: (address) => commitNowFor({ _tag: "BeforeChange", address }, address),
        sessionChanges,
        describe,
      })
    })
  )

/** The live history on the system `git`, with this session's notes homes, the trace and the window room it follows. */
export const layer = layerWith(systemGit).pipe(Layer.provide(Layer.mergeAll(NotesHomesLive.layer, TraceLive.layer, WindowLive.layer, NoticesLive.layer, Platform.layer)))
