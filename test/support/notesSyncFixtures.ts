import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { Effect, Layer } from "effect"
import type { PolicySettings } from "../../src/settings/policy.ts"
import { gitWithin, systemGit } from "../../src/notes/versions/git.ts"
import * as NoticesLive from "../../src/kernel/NoticesLive.ts"
import * as NotesSyncLive from "../../src/notes/sync/NotesSyncLive.ts"
import * as ThresholdsLive from "../../src/settings/ThresholdsLive.ts"
import * as TraceLive from "../../src/trace/TraceLive.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import { Notices } from "../../src/kernel/Notices.ts"
import { NotesSync } from "../../src/notes/sync/NotesSync.ts"
import type { GitRunner } from "../../src/notes/versions/NotesVersions.ts"
import type { PiSession } from "../../src/kernel/PiSession.ts"
import { Trace } from "../../src/trace/Trace.ts"
import { Window } from "../../src/window/Window.ts"
import { makeFakeSession } from "./FakePiSession.ts"
import { liveNotesLayer } from "./notesStoreFixtures.ts"
import { tempDir } from "./tempDirs.ts"
import type { SyncableHome } from "../../src/settings/sync.ts"

/**
 * Notes sync on the real git, with local bare repositories as remotes and
 * one notes root per "machine". Git never reads the user's own configuration:
 * `isolateGit` points it at an empty global file for the whole test file.
 */

export const isolateGit = (): (() => void) => {
  const home = tempDir("pi-sync-home-")
  const saved = { GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM: process.env.GIT_CONFIG_NOSYSTEM }
  writeFileSync(join(home, ".gitconfig"), "")
  process.env.GIT_CONFIG_GLOBAL = join(home, ".gitconfig")
  process.env.GIT_CONFIG_NOSYSTEM = "1"
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    rmSync(home, { recursive: true, force: true })
  }
}

export const git = (cwd: string, ...args: ReadonlyArray<string>): string =>
  execFileSync("git", [...args], { cwd, encoding: "utf8", env: { ...process.env, LC_ALL: "C" } })

/** A bare repository, the remote both machines share. */
export const bareRemote = (parent: string, name = "notes.git"): string => {
  const dir = join(parent, name)
  execFileSync("git", ["init", "--bare", "-q", dir])
  return dir
}

export const writeNote = (root: string, relative: string, text: string): void => {
  mkdirSync(dirname(join(root, relative)), { recursive: true })
  writeFileSync(join(root, relative), text)
}

export const readNote = (root: string, relative: string): string | undefined =>
  existsSync(join(root, relative)) ? readFileSync(join(root, relative), "utf8") : undefined

/** The files of a folder of a root (`user`), sorted. */
export const filesIn = (root: string, folder: string): ReadonlyArray<string> =>
  existsSync(join(root, folder)) ? readdirSync(join(root, folder)).sort() : []

export interface Remote {
  readonly homes: ReadonlyArray<SyncableHome>
  readonly remote: string
  readonly branch?: string
}

/**
 * One machine: a notes root, a session on it, and its own sync (its own
 * state, as another Pi's would be), built once for the test. `traced` collects
 * the trace's lines.
 */
export const machine = (root: string, remotes: ReadonlyArray<Remote>, options: { readonly budgetMs?: number; readonly sessionId?: string } = {}) =>
  Effect.gen(function*() {
    const traced: Array<string> = []
    const policy: PolicySettings = { sync: remotes }
    // Each fetch the sync ran, counted as it reaches the network's git.
    const fetched = { count: 0 }
    const network = (budgetMs: number): GitRunner => {
      const run = gitWithin(budgetMs)
      return (cwd, args, stdin) => {
        if (args.includes("fetch")) fetched.count += 1
        return run(cwd, args, stdin)
      }
    }
    const context = yield* Layer.build(
      NotesSyncLive.layerWith({ git: systemGit, network, budgetMs: options.budgetMs ?? NotesSyncLive.SyncBudgetMs }).pipe(
        Layer.provideMerge(Layer.mergeAll(liveNotesLayer, ThresholdsLive.layerInjected(policy), TraceLive.layerWith((_path, line) => {
          traced.push(line)
          if (process.env.DEBUG_TRACE) console.log(line)
        }))),
        Layer.provideMerge(NoticesLive.layer),
        // The room whose ended windows the sync pushes after: `push` ends the session's.
        Layer.provideMerge(WindowLive.layer)
      )
    )
    const session = makeFakeSession({
      sessionId: options.sessionId ?? `sync-${root.split("/").pop()}`,
      cwd: root,
      settings: { "pi-context": { notesRoot: root } },
      model: { provider: "test", id: "sync-model", contextWindow: 100_000 }
    })
    const use = <A>(f: (sync: NotesSync["Service"]) => Effect.Effect<A, never, PiSession>) =>
      NotesSync.use(f).pipe(Effect.provide(session.layer), Effect.provide(context))
    yield* Trace.use((trace) => trace.open({ sessionId: session.sessionId, agentDir: root, level: "debug" })).pipe(Effect.provide(context))
    return {
      root,
      session,
      traced,
      fetches: () => fetched.count,
      /** A pull as at session start, waited for. */
      pull: use((sync) => Effect.andThen(sync.started, sync.awaitRounds(60_000))),
      /** The push a window's end starts (here the session's), waited for. */
      push: Effect.andThen(Window.use((window) => window.sessionEnding), use((sync) => sync.awaitRounds(60_000))).pipe(Effect.provide(session.layer), Effect.provide(context)),
      started: use((sync) => sync.started),
      awaitRounds: use((sync) => sync.awaitRounds(60_000)),
      now: use((sync) => sync.syncNow),
      states: use((sync) => sync.states),
      setup: use((sync) => sync.setup),
      /** Every notice left so far. */
      notices: Notices.use((notices) => notices.takeAll).pipe(Effect.provide(context))
    }
  })

