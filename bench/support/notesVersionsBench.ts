/**
 * The notes history's figures, for bench/notes.ts, over its 10,000-note root:
 *
 * - commit_window_ms: one window's commit of 20 changed notes (4 in each of
 *   the five homes, rewritten outside the timing), from the window's end to the
 *   commit landing: git status over the homes, add, commit. The target is 100 ms.
 * - first_commit_ms: the first boundary, which creates the repository and
 *   commits every note (once per notes root).
 * - boundary_hook_ms_with_commit / _without_commit: the lifecycle's
 *   `turn_end` at a reset boundary (boot render included), with the live
 *   history and with a history that does nothing, alternated; the commit is
 *   forked after the hook returns, so the two should agree.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { homeSegments, type NotesIdentity } from "../../src/notes/identity.ts"
import * as NotesVersionsLive from "../../src/notes/versions/NotesVersionsLive.ts"
import { appLayer } from "../../src/runtime.ts"
import { Lifecycle } from "../../src/reset/Lifecycle.ts"
import { NotesVersions, VersionsUnavailable } from "../../src/notes/versions/NotesVersions.ts"
import { checkpointEntry, makeFakeSession, messageEntry } from "../../test/support/FakePiSession.ts"
import { windowEnds } from "../../test/support/notesVersionsFixtures.ts"
import { median, pairedRounds } from "./stats.ts"
import { Homes } from "../../src/kernel/homes.ts"

const Runs = 9
const Warmup = 2
const ChangedNotes = 20


/** Note versions that commit nothing: what a session without them would do. */
export const inactiveVersions = Layer.succeed(NotesVersions, NotesVersions.of({
  awaitCommits: () => Effect.void,
  history: () => Effect.succeed(""),
  diff: () => Effect.succeed(""),
  restore: () => Effect.succeed(""),
  commitNow: () => Effect.succeed(""),
  keepNote: () => Effect.fail(new VersionsUnavailable({ message: "the note versions are inactive" })),
  sessionChanges: () => Effect.succeed(Option.none()),
  describe: Effect.succeed({ ok: true, text: "" }),
  offered: Effect.succeed(false),
}))

export interface VersionsFigures {
  readonly commit_window_ms: number
  readonly first_commit_ms: number
  readonly boundary_hook_ms_with_commit: number
  readonly boundary_hook_ms_without_commit: number
}

/** `seeded(home, i)` is the path of note i of a home, as bench/notes.ts laid them out. */
export const benchNotesVersions = async (
  identity: NotesIdentity,
  seeded: (dir: string, i: number) => string
): Promise<VersionsFigures> => {
  const session = makeFakeSession({
    sessionId: identity.sessionId,
    cwd: identity.root,
    settings: { "pi-context": { notesRoot: identity.root, agentName: identity.agentName } },
    model: { provider: "bench", id: identity.modelSlug, contextWindow: 200_000 },
    // A note was written in the window (the checkpoint check lets the wipe through).
    entries: [messageEntry("user", "hello"), checkpointEntry()]
  })
  let round = 0
  const changeNotes = () => {
    round++
    for (let k = 0; k < ChangedNotes; k++) {
      const home = Homes[k % Homes.length]!
      const file = seeded(join(identity.root, ...homeSegments(identity, home)), 100 * k + (round % 50))
      writeFileSync(file, `# changed in round ${round}\n\nnote ${k}\n`)
    }
  }
  const withCommit = ManagedRuntime.make(appLayer({ policy: {}, notesVersions: NotesVersionsLive.layer }))
  const withoutCommit = ManagedRuntime.make(appLayer({ policy: {}, notesVersions: inactiveVersions }))
  const onSession = <A>(effect: Effect.Effect<A, never, any>) => Effect.provide(effect, session.layer)
  const commitWindow = (runtime: typeof withCommit) =>
    runtime.runPromise(onSession(Effect.gen(function*() {
      const history = yield* NotesVersions
      yield* windowEnds(round, `pcx:bench:w${round}`)
      yield* history.awaitCommits(60_000)
    })))
  const boundary = async (runtime: typeof withCommit | typeof withoutCommit): Promise<number> => {
    await runtime.runPromise(onSession(Lifecycle.use((l) => l.requestWipe)))
    const start = performance.now()
    const reply = await runtime.runPromise(onSession(Lifecycle.use((l) => l.turnEnded({ incoming: [], outcome: "completed", overflow: false, toolTurn: true }))))
    const elapsed = performance.now() - start
    if (reply.reply?.continue !== true) throw new Error("the bench's boundary was not committed")
    await runtime.runPromise(NotesVersions.use((history) => history.awaitCommits(60_000)))
    return elapsed
  }
  try {
    let start = performance.now()
    await commitWindow(withCommit)
    const firstCommit = performance.now() - start

    const commitTimes: Array<number> = []
    for (let i = 0; i < Warmup + Runs; i++) {
      changeNotes()
      start = performance.now()
      await commitWindow(withCommit)
      if (i >= Warmup) commitTimes.push(performance.now() - start)
    }

    const [hookWith, hookWithout] = await pairedRounds(Warmup, Runs, async () => {
      changeNotes()
      const withHistory = await boundary(withCommit)
      changeNotes()
      return [withHistory, await boundary(withoutCommit)] as const
    })
    return {
      commit_window_ms: Number(median(commitTimes).toFixed(2)),
      first_commit_ms: Number(firstCommit.toFixed(1)),
      boundary_hook_ms_with_commit: Number(median(hookWith).toFixed(3)),
      boundary_hook_ms_without_commit: Number(median(hookWithout).toFixed(3))
    }
  } finally {
    await withCommit.dispose()
    await withoutCommit.dispose()
  }
}
