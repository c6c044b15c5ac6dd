import { createHash } from "node:crypto"
import { Clock, Effect, FiberSet, FileSystem, Layer, Path, Semaphore } from "effect"
import type { NotesIdentity } from "../identity.ts"
import { redactRemote, redactText } from "../../kernel/redact.ts"
import { conflictNotice, failureNotice, mirrorName, MirrorsFolder, overruledNotice, pullDetail, remoteForGit, skippedNotice, syncTrees } from "./syncPlan.ts"
import type { RemoteSyncState, SyncOutcome } from "./syncTypes.ts"
import { type SyncRemoteSetting, SyncSettingKey } from "../../settings/sync.ts"
import { shownPath } from "./syncView.ts"
import { renderNotice } from "../../settings/notice.ts"
import type { GitRunner } from "../versions/NotesVersions.ts"
import { NotesHomes } from "../NotesHomes.ts"
import { Notices } from "../../kernel/Notices.ts"
import { NotesSync } from "./NotesSync.ts"
import { PiSession } from "../../kernel/PiSession.ts"
import { Window } from "../../window/Window.ts"
import { Thresholds } from "../../settings/Thresholds.ts"
import { Trace } from "../../trace/Trace.ts"
import { gitWithin, systemGit } from "../versions/git.ts"
import { hidePaths } from "../versions/repo.ts"
import { readJson, writeJson } from "./copy.ts"
import { SyncStepFailed } from "./mirror.ts"
import { type RoundMode, type RoundResult, syncRound, type WrittenConflict } from "./round.ts"
import * as NoticesLive from "../../kernel/NoticesLive.ts"
import * as NotesHomesLive from "../NotesHomesLive.ts"
import * as Platform from "../../kernel/platform.ts"
import * as ThresholdsLive from "../../settings/ThresholdsLive.ts"
import * as TraceLive from "../../trace/TraceLive.ts"
import * as WindowLive from "../../window/WindowLive.ts"
import { plural } from "../../kernel/plural.ts"

/** How long one pull or push of a remote may take before it is cut. */
export const SyncBudgetMs = 10_000

export interface SyncOptions {
  /** Local git runs in the mirrors. */
  readonly git: GitRunner
  /** The git of fetch and push, cut at `budgetMs`. */
  readonly network: (budgetMs: number) => GitRunner
  readonly budgetMs: number
}

const ModeRank: Readonly<Record<RoundMode, number>> = { pull: 0, push: 1, resolve: 2 }

interface Remote {
  readonly setting: SyncRemoteSetting
  readonly shown: string
  /** The remote as git is handed it (`remoteForGit`), as of the session that asked last. */
  url: string
  readonly lock: Semaphore.Semaphore
  /** The round waiting for the lock; a later request joins it (it copies the homes in when it runs). */
  queued: RoundMode | undefined
  lastPull: SyncOutcome | undefined
  lastPush: SyncOutcome | undefined
  ahead: number | undefined
  behind: number | undefined
  diverged: { readonly backupRef: string; readonly atMs: number } | undefined
  pushPending: boolean
  /**
   * The homes' fingerprint as of the last round that left both sides the
   * same (nothing to push, nothing written here, no failure): a push round
   * that finds them so is skipped.
   */
  settled: string | undefined
}

const keyOf = (setting: SyncRemoteSetting) => `${setting.remote}\0${setting.branch}`
const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 10)

export const layerWith = (options: SyncOptions) =>
  Layer.effect(
    NotesSync,
    Effect.gen(function*() {
      const homes = yield* NotesHomes
      const thresholds = yield* Thresholds
      const trace = yield* Trace
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const fibers = yield* FiberSet.make<void, never>()
      const remotes = new Map<string, Remote>()
      const notices = yield* Notices
      const network = options.network(options.budgetMs)
      const platform = Platform.withPlatform(fs, path)

      // The sync's own keys: a remote's URL cannot then meet a key of the note versions'.
      const tellOnce = (key: string, text: string) => notices.tellOnce(`sync\0${key}`, text)
      const forget = (prefix: string) => notices.forgetStartingWith(`sync\0${prefix}`)

      const remoteFor = (setting: SyncRemoteSetting): Remote => {
        const key = keyOf(setting)
        const known = remotes.get(key)
        if (known !== undefined) return known
        const fresh: Remote = {
          setting,
          shown: redactRemote(setting.remote),
          url: setting.remote,
          lock: Semaphore.makeUnsafe(1),
          queued: undefined,
          lastPull: undefined,
          lastPush: undefined,
          ahead: undefined,
          behind: undefined,
          diverged: undefined,
          pushPending: false,
          settled: undefined
        }
        remotes.set(key, fresh)
        return fresh
      }

      const mirrorDir = (identity: NotesIdentity, remote: Remote) =>
        path.join(identity.root, MirrorsFolder, mirrorName(remote.shown, remote.setting.branch, shortHash))
      const conflictsFile = (identity: NotesIdentity, remote: Remote) => path.join(mirrorDir(identity, remote), ".git", "pi-context-conflicts.json")

      /** The conflict copies still beside their notes; those the user retired are dropped from the list. */
      const pendingConflicts = (identity: NotesIdentity, remote: Remote, added: ReadonlyArray<WrittenConflict> = []) =>
        Effect.gen(function*() {
          const file = conflictsFile(identity, remote)
          const listed = [...(yield* platform(readJson<ReadonlyArray<WrittenConflict>>(file, []))), ...added]
          const present = yield* Effect.filter(listed, (copy) => fs.exists(copy.file).pipe(Effect.orElseSucceed(() => false)))
          if (present.length !== listed.length || added.length > 0) yield* Effect.ignore(platform(writeJson(file, present)))
          return present
        })

      /** Git's words as they may be shown: the remote redacted wherever it appears, the machine's paths hidden. */
      const scrub = (identity: NotesIdentity, remote: Remote, detail: string) =>
        hidePaths(redactText(detail.split(remote.url).join(remote.shown).split(remote.setting.remote).join(remote.shown), [remote.setting.remote]), identity.root)
          .replace(/\b(fatal|error): /g, "").trim()

      const failed = (atMs: number, failure: SyncStepFailed, identity: NotesIdentity, remote: Remote): SyncOutcome & { readonly _tag: "Failed" } => ({
        _tag: "Failed",
        atMs,
        kind: failure.kind,
        detail: failure.kind === "timeout" ? `cut after ${options.budgetMs / 1000} s` : scrub(identity, remote, failure.detail)
      })

      const round = (identity: NotesIdentity, remote: Remote, mode: RoundMode) =>
        Effect.gen(function*() {
          const atMs = yield* Clock.currentTimeMillis
          const { setting } = remote
          const key = keyOf(setting)
          const result = yield* Effect.result(
            platform(syncRound(
              { root: identity.root, name: path.basename(mirrorDir(identity, remote)), git: options.git, network, url: remote.url, branch: setting.branch },
              identity,
              setting.homes,
              syncTrees(identity, setting.homes, path.join),
              mode,
              atMs,
              remote.pushPending ? undefined : remote.settled
            )).pipe(
              Effect.timeoutOrElse({
                duration: options.budgetMs * 2,
                orElse: () => Effect.fail(new SyncStepFailed({ kind: "timeout", detail: "timed out" }))
              })
            )
          )
          const pushes = mode !== "pull"
          if (result._tag === "Failure") {
            remote.settled = undefined
            const failure = result.failure
            if (failure._tag === "MirrorBusy") {
              if (pushes) remote.pushPending = true
              return yield* trace.info("sync.busy", { remote: remote.shown, branch: setting.branch, mode })
            }
            const outcome = failed(atMs, failure, identity, remote)
            remote.lastPull = outcome
            if (pushes) {
              remote.lastPush = outcome
              remote.pushPending = true
            }
            yield* trace.info("sync.failed", { remote: remote.shown, branch: setting.branch, mode, kind: outcome.kind, detail: outcome.detail })
            return yield* tellOnce(`${key}\0${outcome.kind}`, failureNotice(remote.shown, setting.branch, outcome.kind, outcome.detail))
          }
          if ("_tag" in result.success) return yield* trace.info("sync.unchanged", { remote: remote.shown, branch: setting.branch, mode })
          yield* recordRound(identity, remote, mode, atMs, result.success)
        }).pipe(Effect.catchCause((cause) => trace.info("sync.crashed", { remote: remote.shown, cause: redactText(String(cause), [remote.setting.remote]).slice(0, 500) })))

      const recordRound = (identity: NotesIdentity, remote: Remote, mode: RoundMode, atMs: number, result: RoundResult) =>
        Effect.gen(function*() {
          const { setting } = remote
          const key = keyOf(setting)
          remote.ahead = result.ahead
          remote.behind = result.behind
          const unchangedHere = result.pulledNotes === 0 && result.retiredNotes === 0 && result.conflicts.length === 0
          remote.settled = result.diverged === undefined && result.pushFailure === undefined && result.ahead === 0 && unchangedHere
            ? result.fingerprint
            : undefined
          if (result.diverged !== undefined) {
            remote.diverged = remote.diverged?.backupRef === result.diverged ? remote.diverged : { backupRef: result.diverged, atMs }
            const outcome: SyncOutcome = { _tag: "Failed", atMs, kind: "diverged", detail: `history rewritten; local branch kept as ${result.diverged}` }
            remote.lastPull = outcome
            if (mode !== "pull") {
              remote.lastPush = outcome
              remote.pushPending = true
            }
            yield* tellOnce(`${key}\0diverged`, failureNotice(remote.shown, setting.branch, "diverged", "", result.diverged))
          } else {
            remote.diverged = undefined
            remote.lastPull = {
              _tag: "Ok",
              atMs,
              detail: pullDetail({ pulled: result.pulledNotes, retired: result.retiredNotes, conflicts: result.conflicts.length })
            }
            if (result.pushFailure !== undefined) {
              const outcome = failed(atMs, result.pushFailure, identity, remote)
              remote.lastPush = outcome
              remote.pushPending = true
              yield* tellOnce(`${key}\0${outcome.kind}`, failureNotice(remote.shown, setting.branch, outcome.kind, outcome.detail))
            } else {
              yield* forget(key)
              if (mode !== "pull") {
                remote.pushPending = false
                remote.lastPush = { _tag: "Ok", atMs, detail: result.pushedCommits === undefined ? "up to date" : `${plural(result.pushedCommits, "commit")} pushed` }
              }
            }
          }
          // One notice for all a pull skipped, told again only when what it skips changes.
          if (result.skipped.length > 0) {
            yield* tellOnce(`skipped\0${key}\0${result.skipped.map((entry) => entry.path).sort().join("\0")}`, skippedNotice(remote.shown, result.skipped))
          }
          if (result.overruled.length > 0) {
            const shown = result.overruled.map((lost) => ({ shown: `@${lost.home}/${lost.note}`, commit: lost.commit, path: lost.path }))
            yield* notices.tell(overruledNotice(remote.shown, shown, mirrorDir(identity, remote)))
          }
          if (result.conflicts.length > 0) {
            yield* pendingConflicts(identity, remote, result.conflicts)
            yield* notices.tell(conflictNotice(remote.shown, result.conflicts.map((copy) => ({ shown: `@${copy.home}/${copy.copy}` }))))
          }
          yield* trace.info("sync.round", {
            remote: remote.shown,
            branch: setting.branch,
            mode,
            pulled: result.pulledNotes,
            retired: result.retiredNotes,
            pushed: result.pushedCommits ?? 0,
            conflicts: result.conflicts.length,
            diverged: result.diverged !== undefined
          })
        })

      /** The session's identity and remotes, taken now: Pi's context may be stale by the time a forked round runs. */
      const configured = Effect.gen(function*() {
        const settings = (yield* thresholds.policy).sync
        if (settings.length === 0) return { identity: undefined, remotes: [] as ReadonlyArray<Remote> }
        const session = yield* PiSession
        const home = yield* Effect.sync(() => process.env.HOME)
        const chosen = settings.map(remoteFor)
        for (const remote of chosen) remote.url = remoteForGit(remote.setting.remote, home, session.cwd, path.resolve)
        return { identity: yield* homes.identity, remotes: chosen }
      })

      /** Forks a round of every remote, or joins the one already waiting. */
      const forkAll = (mode: RoundMode) =>
        Effect.gen(function*() {
          const { identity, remotes: chosen } = yield* configured
          if (identity === undefined) return
          for (const remote of chosen) {
            if (remote.queued !== undefined) {
              if (ModeRank[mode] > ModeRank[remote.queued]) remote.queued = mode
              continue
            }
            remote.queued = mode
            yield* FiberSet.run(fibers, { startImmediately: false })(
              remote.lock.withPermit(Effect.suspend(() => {
                const queued = remote.queued ?? mode
                remote.queued = undefined
                return round(identity, remote, queued)
              }))
            )
          }
        }).pipe(Effect.catchCause((cause) => trace.info("sync.failed", { cause: String(cause).slice(0, 500) })))

      const states = Effect.gen(function*() {
        const { identity, remotes: chosen } = yield* configured
        if (identity === undefined) return []
        return yield* Effect.forEach(chosen, (remote) =>
          Effect.map(pendingConflicts(identity, remote), (conflicts): RemoteSyncState => ({
            remote: remote.shown,
            branch: remote.setting.branch,
            homes: remote.setting.homes,
            lastPull: remote.lastPull,
            lastPush: remote.lastPush,
            ahead: remote.ahead,
            behind: remote.behind,
            conflicts: conflicts.map(({ file: _file, ...copy }) => copy),
            diverged: remote.diverged,
            pushPending: remote.pushPending
          })))
      }).pipe(Effect.catchCause(() => Effect.succeed([] as ReadonlyArray<RemoteSyncState>)))

      const syncNow = Effect.gen(function*() {
        const { identity, remotes: chosen } = yield* configured
        if (identity !== undefined) {
          for (const remote of chosen) yield* remote.lock.withPermit(round(identity, remote, "resolve"))
        }
        return yield* states
      }).pipe(Effect.catchCause(() => Effect.succeed([] as ReadonlyArray<RemoteSyncState>)))

      const setup = Effect.gen(function*() {
        const session = yield* PiSession
        const policy = yield* thresholds.policy
        const home = yield* Effect.sync(() => process.env.HOME)
        return {
          globalSettings: shownPath(path.join(session.agentDir, "settings.json"), home),
          // Entries that were set but ignored leave no remote: their notices say why.
          ignored: policy.sync.length > 0 ? [] : policy.notices.filter((notice) => notice.key.startsWith(SyncSettingKey)).map(renderNotice)
        }
      })

      // A window ended (a reset, the session's end): a bounded push of every remote, forked; the hook never waits for it.
      yield* (yield* Window).subscribe((event) => event._tag === "WindowEnded" ? forkAll("push") : Effect.void)

      return NotesSync.of({
        started: forkAll("pull"),
        awaitRounds: (timeoutMs) => Effect.asVoid(Effect.timeoutOption(FiberSet.awaitEmpty(fibers), timeoutMs)),
        syncNow,
        states,
        setup
      })
    })
  )

/** The live sync on the system `git`, with this session's homes, settings and trace. */
export const layer = layerWith({ git: systemGit, network: gitWithin, budgetMs: SyncBudgetMs }).pipe(
  Layer.provide(Layer.mergeAll(NotesHomesLive.layer, ThresholdsLive.layer, TraceLive.layer, NoticesLive.layer, WindowLive.layer, Platform.layer))
)
