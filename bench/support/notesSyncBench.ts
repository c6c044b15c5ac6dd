/**
 * The notes sync's figures, for bench/notes.ts, over its 10,000-note root
 * (the user, agent, model and project homes synced: 8,000 notes) and a local
 * bare repository as the remote:
 *
 * - sync_push_ms: after 20 notes changed (5 in each synced home, rewritten
 *   outside the timing), one push round, from `committed` to the push landing:
 *   fetch, copy the homes in, commit, push. The target is 300 ms.
 * - sync_pull_ms: a second notes root (another machine, which pulled every
 *   note once outside the timing) pulls those 20 notes: fetch, copy in, merge,
 *   copy back. The target is 300 ms.
 * - first_pull_ms / first_push_ms: the first round of each machine, every synced
 *   note at once (8,000 of bench/notes.ts's 10,000): this machine's first push,
 *   then the other machine's first pull into an empty root. docs/sync.md states
 *   the first pull's figure; the load average beside it says how busy the
 *   machine was.
 * - boundary_hook_ms_sync_on / _sync_off: the lifecycle's `turn_end` at a reset
 *   boundary with the live history, with the remote configured and without,
 *   alternated; the commit and the push are forked after the hook returns,
 *   so the two should agree.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, ManagedRuntime } from "effect"
import { homeSegments, type NotesIdentity } from "../../src/notes/identity.ts"
import { appLayer } from "../../src/runtime.ts"
import { Lifecycle } from "../../src/reset/Lifecycle.ts"
import { NotesVersions } from "../../src/notes/versions/NotesVersions.ts"
import { NotesSync } from "../../src/notes/sync/NotesSync.ts"
import { Window } from "../../src/window/Window.ts"
import { checkpointEntry, makeFakeSession, messageEntry } from "../../test/support/FakePiSession.ts"
import { median, pairedRounds } from "./stats.ts"
import { inactiveVersions } from "./notesVersionsBench.ts"
import type { SyncableHome } from "../../src/settings/sync.ts"

const Runs = 9
const Warmup = 2
const ChangedNotes = 20
const SyncedHomes: ReadonlyArray<SyncableHome> = ["project", "user", "agent", "model"]


export interface SyncFigures {
  readonly first_push_ms: number
  readonly first_pull_ms: number
  readonly first_pull_notes: number
  readonly load_average_1m: number
  readonly sync_push_ms: number
  readonly sync_pull_ms: number
  readonly boundary_hook_ms_sync_on: number
  readonly boundary_hook_ms_sync_off: number
}

/** `seeded(dir, i)` is the path of note i of a home, as bench/notes.ts laid them out, `notesPerHome` in each (at least 100). */
export const benchNotesSync = async (
  identity: NotesIdentity,
  seeded: (dir: string, i: number) => string,
  notesPerHome: number
): Promise<SyncFigures> => {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "pi-sync-bench-")))
  const remote = join(scratch, "notes.git")
  execFileSync("git", ["init", "--bare", "-q", remote])
  const policy = { sync: [{ homes: SyncedHomes, remote, branch: "notes" }] }
  const sessionOn = (root: string, sessionId: string) =>
    makeFakeSession({
      sessionId,
      cwd: identity.root,
      settings: { "pi-context": { notesRoot: root, agentName: identity.agentName } },
      model: { provider: "bench", id: identity.modelSlug, contextWindow: 200_000 },
      entries: [messageEntry("user", "hello"), checkpointEntry()]
    })
  const here = sessionOn(identity.root, "bench-sync-here")
  const otherRoot = join(scratch, "other")
  mkdirSync(otherRoot)
  const there = sessionOn(otherRoot, "bench-sync-there")
  let round = 0
  const changeNotes = () => {
    round++
    for (let k = 0; k < ChangedNotes; k++) {
      const home = SyncedHomes[k % SyncedHomes.length]!
      // Five notes per home, each in a folder of its own when the home has that many folders (git writes a tree per folder).
      const index = Math.floor(k / SyncedHomes.length) * Math.max(20, Math.floor(notesPerHome / 5)) + (round % 20)
      writeFileSync(seeded(join(identity.root, ...homeSegments(identity, home)), index), `# synced in round ${round}\n\nnote ${k}\n`)
    }
  }
  const syncOn = ManagedRuntime.make(appLayer({ policy }))
  // The timed pushes end a window in a session without note versions: a window's end would also fork its commit,
  // and the figure is the sync round's alone.
  const pushing = ManagedRuntime.make(appLayer({ policy, notesVersions: inactiveVersions }))
  const syncOff = ManagedRuntime.make(appLayer({ policy: {} }))
  const otherMachine = ManagedRuntime.make(appLayer({ policy }))
  const timed = async (runtime: typeof syncOn, session: typeof here, start: Effect.Effect<void, never, any>) => {
    const began = performance.now()
    await runtime.runPromise(Effect.provide(Effect.andThen(start, NotesSync.use((sync) => sync.awaitRounds(60_000))), session.layer))
    return performance.now() - began
  }
  // The push a window's end starts (here the session's), waited for.
  const push = () => timed(pushing, here, Window.use((window) => window.sessionEnding))
  const pull = () => timed(otherMachine, there, NotesSync.use((sync) => sync.started))
  const boundary = async (runtime: typeof syncOn): Promise<number> => {
    const onSession = <A>(effect: Effect.Effect<A, never, any>) => Effect.provide(effect, here.layer)
    await runtime.runPromise(onSession(Lifecycle.use((l) => l.requestWipe)))
    const start = performance.now()
    const reply = await runtime.runPromise(onSession(Lifecycle.use((l) => l.turnEnded({ incoming: [], outcome: "completed", overflow: false, toolTurn: true }))))
    const elapsed = performance.now() - start
    if (reply.reply?.continue !== true) throw new Error("the bench's boundary was not committed")
    await runtime.runPromise(Effect.andThen(NotesVersions.use((history) => history.awaitCommits(60_000)), NotesSync.use((sync) => sync.awaitRounds(60_000))))
    return elapsed
  }
  try {
    // Every note once: the first push, and the other machine's first pull.
    const firstPush = await push()
    const firstPull = await pull()
    const load = loadavg()[0]!
    const [pushTimes, pullTimes] = await pairedRounds(Warmup, Runs, async () => {
      changeNotes()
      const pushed = await push()
      return [pushed, await pull()] as const
    })
    const [hookOn, hookOff] = await pairedRounds(Warmup, Runs, async () => {
      changeNotes()
      const on = await boundary(syncOn)
      changeNotes()
      return [on, await boundary(syncOff)] as const
    })
    return {
      first_push_ms: Math.round(firstPush),
      first_pull_ms: Math.round(firstPull),
      first_pull_notes: notesPerHome * SyncedHomes.length,
      load_average_1m: Number(load.toFixed(2)),
      sync_push_ms: Number(median(pushTimes).toFixed(2)),
      sync_pull_ms: Number(median(pullTimes).toFixed(2)),
      boundary_hook_ms_sync_on: Number(median(hookOn).toFixed(3)),
      boundary_hook_ms_sync_off: Number(median(hookOff).toFixed(3))
    }
  } finally {
    await syncOn.dispose()
    await pushing.dispose()
    await syncOff.dispose()
    await otherMachine.dispose()
    rmSync(scratch, { recursive: true, force: true })
  }
}
