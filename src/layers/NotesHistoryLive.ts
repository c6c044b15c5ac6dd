import { Effect, FiberSet, FileSystem, Layer, Option, Path, Ref, Result, Schedule, Semaphore } from "effect"
import { parseAddress, parseHome } from "../domain/notes/address.ts"
import { parseNote } from "../domain/notes/frontmatter.ts"
import {
  type CommitReason,
  describePath,
  historyHomes,
  homePathspecs,
  isCommitRef,
  type HistoryLayout,
  LogFormat,
  notePaths,
  parseLog,
  renderHistory,
  shortSessionId
} from "../domain/notes/history.ts"
import { windowNoteChanges } from "../domain/notes/windowChanges.ts"
import type { NotesIdentity } from "../domain/notes/identity.ts"
import { type GitFailed, type GitRunner, HistoryUnavailable, NotesHistory } from "../services/NotesHistory.ts"
import { NotesStore } from "../services/NotesStore.ts"
import { PiSession } from "../services/PiSession.ts"
import { Trace } from "../services/Trace.ts"
import { describeStoreFailure } from "../services/notesStoreFailure.ts"
import { notesIdentity } from "../services/NotesIdentity.ts"
import { systemGit } from "./notes/git.ts"
import * as NotesStoreLive from "./NotesStoreLive.ts"
import * as Platform from "./platform.ts"
import * as TraceLive from "./TraceLive.ts"
import { commitScope, hidePaths, openRepo, type Repo, restoreScope } from "./notes/repo.ts"

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
/** How long the windows view waits for commits in flight and the log, at most. */
const SessionChangesWaitMs = 5_000
const DiffCharLimit = 16_000

type Ready = Repo & { readonly _tag: "Ready" }

const layoutOf = (repo: Ready, identity: NotesIdentity): HistoryLayout => ({ prefix: repo.prefix, identity })

const literal = (path: string) => `:(literal)${path}`

/** Another git (another Pi, the user) holds the repository's lock for a moment: worth a retry. */
const isLockContention = (error: GitFailed): boolean => /\.lock\b.*(exists|File exists)|Unable to create .*\.lock/i.test(error.detail)

export const layerWith = (git: GitRunner) =>
  Layer.effect(
    NotesHistory,
    Effect.gen(function*() {
      const store = yield* NotesStore
      const trace = yield* Trace
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const fibers = yield* FiberSet.make<void, never>()
      const repos = new Map<string, Repo>()
      const locks = new Map<string, Semaphore.Semaphore>()
      const notices = yield* Ref.make<ReadonlyArray<string>>([])
      const told = new Set<string>()

      const tellOnce = (key: string, text: string) =>
        Effect.suspend(() => {
          if (told.has(key)) return Effect.void
          told.add(key)
          return Ref.update(notices, (queued) => [...queued, text])
        })

      /** One git operation at a time per root: commits never interleave, and a restore waits for a window's commit. */
      const serialized = <A, E, R>(root: string, effect: Effect.Effect<A, E, R>) =>
        Effect.suspend(() => {
          let lock = locks.get(root)
          if (lock === undefined) {
            lock = Semaphore.makeUnsafe(1)
            locks.set(root, lock)
          }
          return lock.withPermit(effect)
        })

      /** The root's repository, opened once (an off root stays off until Pi restarts); not yet when the root is missing. */
      const repoFor = (root: string, create: boolean) =>
        Effect.gen(function*() {
          const known = repos.get(root)
          if (known !== undefined) return known
          const repo = yield* openRepo(git, root, create).pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))
          if (repo._tag === "NotYet") return repo
          repos.set(root, repo)
          if (repo._tag === "Off") {
            yield* trace.info("history.off", { reason: repo.reason })
            yield* tellOnce(`off:${root}`, `pi-context: notes history is off (${repo.reason}); notes work as before, without commits.`)
          } else {
            yield* trace.info("history.opened", { owned: repo.owned, nested: repo.prefix !== "" })
          }
          return repo
        })

      const identityNow = Effect.provideService(notesIdentity(), NotesStore, store)

      const commitNow = (reason: CommitReason) =>
        Effect.gen(function*() {
          const session = yield* PiSession
          const identity = yield* identityNow
          yield* serialized(identity.root, Effect.gen(function*() {
            const repo = yield* repoFor(identity.root, true)
            if (repo._tag !== "Ready") return
            const committed = yield* commitScope(git, repo, homePathspecs(layoutOf(repo, identity), historyHomes(identity)), reason, session.sessionId)
              .pipe(Effect.retry({ times: 4, schedule: Schedule.spaced("150 millis"), while: isLockContention }))
            if (Option.isSome(committed)) yield* trace.info("history.commit", { files: committed.value.files, reason: reason._tag })
          }).pipe(
            Effect.catchTag("GitFailed", (error) =>
              Effect.andThen(
                trace.info("history.commit-failed", { reason: error.message }),
                tellOnce(
                  `commit:${identity.root}`,
                  `pi-context: could not commit the notes history (${hidePaths(error.message, identity.root)}); your notes are saved, only their history is behind.`
                )
              ))
          ))
        }).pipe(Effect.catchCause((cause) => trace.info("history.failed", { cause: String(cause).slice(0, 500) })))

      /**
       * Forked into the layer's fiber set, after the hook returns: a hook never
       * waits on git. The commit holds the homes as they are when it runs,
       * tens of milliseconds after the boundary: a note written in the next
       * window before then (no model answers that fast) lands in it too.
       */
      const fork = (reason: CommitReason) =>
        Effect.gen(function*() {
          const session = yield* PiSession
          // What the identity reads of Pi, taken now: Pi's context may be stale by the time the commit runs.
          const frozen = PiSession.of({
            ...session,
            settings: Effect.succeed(yield* session.settings),
            model: Effect.succeed(yield* session.model),
            isProjectTrusted: Effect.succeed(yield* session.isProjectTrusted)
          })
          yield* FiberSet.run(fibers, { startImmediately: false })(Effect.provideService(commitNow(reason), PiSession, frozen))
        })

      const flush = FiberSet.awaitEmpty(fibers)

      const unavailable = (message: string) => new HistoryUnavailable({ message })

      /** The identity and a ready repository, or the sentence saying why there is no history. */
      const readyRepo = Effect.gen(function*() {
        // A command sees every window committed so far, including one still in flight.
        yield* flush
        const identity = yield* identityNow
        const repo = yield* serialized(identity.root, repoFor(identity.root, false))
        if (repo._tag === "NotYet") return yield* unavailable("pi-context: no notes history yet; it starts at the end of the first window that writes a note.")
        if (repo._tag === "Off") return yield* unavailable(`pi-context: notes history is off (${repo.reason}).`)
        return { identity, repo }
      })

      const run = (repo: Ready, args: ReadonlyArray<string>, stdin?: string) =>
        git(repo.toplevel, args, stdin).pipe(Effect.mapError((error) => unavailable(`pi-context: ${hidePaths(error.message, repo.toplevel)}`)))

      /** Pathspecs of an address (its home and wastebasket places) or a home; every home when absent. */
      const scopeOf = (identity: NotesIdentity, layout: HistoryLayout, target: string | undefined) =>
        Effect.gen(function*() {
          if (target === undefined) return { title: "Notes history", specs: homePathspecs(layout, historyHomes(identity)) }
          const home = target.startsWith("@") && !target.slice(1).includes("/") || target === "session" ? parseHome(target) : undefined
          const projectInside = (h: string) => h === "project" && identity.projectDir !== undefined
          if (home !== undefined) {
            if (projectInside(home)) return yield* unavailable(inProjectMessage)
            return { title: `History of ${home === "session" ? "this session's notes" : `@${home}`}`, specs: homePathspecs(layout, [home]) }
          }
          const parsed = parseAddress(target)
          if (Result.isFailure(parsed)) return yield* unavailable(`pi-context: "${target}" is not a note address or a home: ${parsed.failure}.`)
          if (projectInside(parsed.success.home)) return yield* unavailable(inProjectMessage)
          const places = notePaths(layout, parsed.success.home, parsed.success.path)
          return { title: `History of ${target}`, specs: [literal(places.live), literal(places.retired)], places, address: parsed.success }
        })

      const history = (target: string | undefined) =>
        Effect.gen(function*() {
          const { identity, repo } = yield* readyRepo
          const layout = layoutOf(repo, identity)
          const scope = yield* scopeOf(identity, layout, target)
          const log = yield* run(repo, ["-c", "core.quotePath=false", "log", "-n", String(HistoryLimit), `--format=${LogFormat}`, "--name-status", "--no-renames", "--", ...scope.specs])
            .pipe(Effect.catch(() => Effect.succeed({ stdout: "" })))
          return renderHistory(layout, scope.title, parseLog(log.stdout), HistoryLimit)
        })

      /** The session's own window commits only (`--grep` before `-n`): a shared repository's other commits never crowd them out. */
      const sessionChanges = Effect.gen(function*() {
        const session = yield* PiSession
        const { identity, repo } = yield* readyRepo
        const layout = layoutOf(repo, identity)
        const log = yield* run(repo, [
          "-c",
          "core.quotePath=false",
          "log",
          "-n",
          String(SessionCommitLimit),
          "--fixed-strings",
          `--grep=of session ${shortSessionId(session.sessionId)}`,
          `--format=${LogFormat}`,
          "--name-status",
          "--no-renames",
          "--",
          ...homePathspecs(layout, historyHomes(identity))
        ]).pipe(Effect.catch(() => Effect.succeed({ stdout: "" })))
        return Option.some(windowNoteChanges(parseLog(log.stdout), session.sessionId, (p) => describePath(layout, p)))
      }).pipe(
        // A git that hangs leaves the view without its history line rather than holding history_windows past its budget.
        Effect.timeoutOption(SessionChangesWaitMs),
        Effect.map(Option.flatten),
        Effect.catchCause(() => Effect.succeed(Option.none()))
      )

      const resolveCommit = (repo: Ready, commit: string) =>
        isCommitRef(commit)
          ? run(repo, ["rev-parse", "--verify", "--quiet", `${commit}^{commit}`]).pipe(
            Effect.map(({ stdout }) => stdout.trim()),
            Effect.mapError(() => unavailable(`pi-context: there is no commit "${commit}" in the notes history; /pi-context notes history lists them.`))
          )
          : Effect.fail(unavailable(`pi-context: "${commit}" is not a commit; give a hash from /pi-context notes history.`))

      const diff = (commit: string, address: string | undefined) =>
        Effect.gen(function*() {
          const { identity, repo } = yield* readyRepo
          const scope = yield* scopeOf(identity, layoutOf(repo, identity), address)
          const hash = yield* resolveCommit(repo, commit)
          const shown = yield* run(repo, ["-c", "core.quotePath=false", "show", "--no-color", "--format=commit %h  %aI%n%s%n", hash, "--", ...scope.specs])
          const text = shown.stdout.trimEnd()
          return text.length <= DiffCharLimit
            ? text
            : `${text.slice(0, DiffCharLimit)}\n… (diff cut at ${DiffCharLimit} characters; name one note to see less: /pi-context notes diff ${commit} <address>)`
        })

      /** A home, or every home (`all`), back to a commit: one restore undoes a whole tidy. */
      const restoreHomes = (identity: NotesIdentity, repo: Ready, scope: { readonly title: string; readonly specs: ReadonlyArray<string> }, target: string, commit: string) =>
        Effect.gen(function*() {
          const session = yield* PiSession
          return yield* serialized(identity.root, Effect.gen(function*() {
            const hash = yield* resolveCommit(repo, commit)
            const what = target === "all" ? "every home" : target
            yield* restoreScope(git, repo, scope.specs, hash).pipe(Effect.mapError((error) => unavailable(`pi-context: could not restore ${what}: ${hidePaths(error.message, repo.toplevel)}`)))
            const committed = yield* commitScope(git, repo, scope.specs, { _tag: "Restore", address: what, from: hash }, session.sessionId).pipe(
              Effect.mapError((error) => unavailable(`pi-context: restored ${what}, but could not commit it (${hidePaths(error.message, repo.toplevel)}).`))
            )
            const head = yield* run(repo, ["rev-parse", "--short", "HEAD"])
            yield* trace.info("history.restore", { from: hash.slice(0, 12), scope: target === "all" ? "all" : "home" })
            return Option.isSome(committed)
              ? `Restored ${what} to ${hash.slice(0, 12)} (${committed.value.files} notes); the restore is commit ${head.stdout.trim()}.`
              : `${what} already matches ${hash.slice(0, 12)}; nothing to commit.`
          }))
        })

      const restore = (address: string, commit: string) =>
        Effect.gen(function*() {
          const session = yield* PiSession
          const { identity, repo } = yield* readyRepo
          const scope = yield* scopeOf(identity, layoutOf(repo, identity), address === "all" ? undefined : address)
          if (scope.places === undefined) return yield* restoreHomes(identity, repo, scope, address, commit)
          const places = scope.places
          return yield* serialized(identity.root, Effect.gen(function*() {
            const hash = yield* resolveCommit(repo, commit)
            const version = yield* run(repo, ["show", `${hash}:${places.live}`]).pipe(
              Effect.catch(() => run(repo, ["show", `${hash}:${places.retired}`])),
              Effect.mapError(() =>
                unavailable(`pi-context: ${address} has no version in commit ${hash.slice(0, 12)}; /pi-context notes history ${address} lists the commits that hold it.`)
              )
            )
            const written = yield* store.write(identity, address, parseNote(version.stdout).body).pipe(
              Effect.mapError((error) => unavailable(`pi-context: could not restore ${address}: ${describeStoreFailure(error).text}`))
            )
            // A retired note that comes back leaves the wastebasket.
            yield* Effect.ignore(fs.remove(path.join(repo.toplevel, places.retired)))
            const committed = yield* commitScope(git, repo, scope.specs, { _tag: "Restore", address: written.address, from: hash }, session.sessionId).pipe(
              Effect.mapError((error) => unavailable(`pi-context: restored ${written.address}, but could not commit it (${hidePaths(error.message, repo.toplevel)}).`))
            )
            const head = yield* run(repo, ["rev-parse", "--short", "HEAD"])
            yield* trace.info("history.restore", { from: hash.slice(0, 12) })
            return Option.isSome(committed)
              ? `Restored ${written.address} to its version in ${hash.slice(0, 12)}; the restore is commit ${head.stdout.trim()}.`
              : `${written.address} already matches its version in ${hash.slice(0, 12)}; nothing to commit.`
          }))
        })

      const commitNowFor = (reason: CommitReason) =>
        Effect.gen(function*() {
          const session = yield* PiSession
          yield* flush
          const identity = yield* identityNow
          return yield* serialized(identity.root, Effect.gen(function*() {
            const repo = yield* repoFor(identity.root, true)
            if (repo._tag === "NotYet") return yield* unavailable("pi-context: there are no notes yet.")
            if (repo._tag === "Off") return yield* unavailable(`pi-context: notes history is off (${repo.reason}).`)
            yield* commitScope(git, repo, homePathspecs(layoutOf(repo, identity), historyHomes(identity)), reason, session.sessionId).pipe(
              Effect.mapError((error) => unavailable(`pi-context: could not commit the notes (${hidePaths(error.message, repo.toplevel)}).`))
            )
            return (yield* run(repo, ["rev-parse", "--short", "HEAD"])).stdout.trim()
          }))
        })

      const describe = Effect.gen(function*() {
        const identity = yield* identityNow
        const repo = yield* serialized(identity.root, repoFor(identity.root, false))
        switch (repo._tag) {
          case "NotYet":
            return { ok: true, text: "notes history: starts at the end of the first window that writes a note" }
          case "Off":
            return { ok: false, text: `notes history: off (${repo.reason}); notes work without commits` }
          case "Ready":
            return {
              ok: true,
              text: `notes history: ${repo.owned ? "pi-context's git repository in the notes root" : "your git repository, used as it is"}` +
                (identity.projectDir === undefined ? "" : "; the in-project project home is committed with the project")
            }
        }
      }).pipe(Effect.catchCause(() => Effect.succeed({ ok: false, text: "notes history: could not be checked" })))

      return NotesHistory.of({
        windowEnded: ({ ordinal }) => fork({ _tag: "Window", ordinal }),
        sessionEnded: ({ ordinal }, timeoutMs) =>
          Effect.andThen(fork({ _tag: "Shutdown", ordinal }), Effect.timeoutOption(flush, timeoutMs)).pipe(Effect.asVoid),
        flush,
        history,
        diff,
        restore,
        commitNow: commitNowFor,
        sessionChanges,
        describe,
        takeNotice: Ref.modify(notices, (queued): [Option.Option<string>, ReadonlyArray<string>] =>
          queued.length === 0 ? [Option.none(), queued] : [Option.some(queued[0]!), queued.slice(1)])
      })
    })
  )

const inProjectMessage = "pi-context: the project home is kept in the project (.pi/notes) and committed with its code; " +
  "its history is the project's own: git log -- .pi/notes"

/** The live history on the system `git`, with the notes store and trace it reads. */
export const layer = layerWith(systemGit).pipe(Layer.provide(Layer.mergeAll(NotesStoreLive.layer, TraceLive.layer, Platform.layer)))
