import { execFileSync } from "node:child_process"
import { Effect, FileSystem, Layer, Option } from "effect"
import { systemGit } from "../../src/notes/versions/git.ts"
import * as NoticesLive from "../../src/kernel/NoticesLive.ts"
import * as NotesVersionsLive from "../../src/notes/versions/NotesVersionsLive.ts"
import * as TraceLive from "../../src/trace/TraceLive.ts"
import * as WindowLive from "../../src/window/WindowLive.ts"
import type { GitRunner } from "../../src/notes/versions/NotesVersions.ts"
import { NotesVersions } from "../../src/notes/versions/NotesVersions.ts"
import { Window } from "../../src/window/Window.ts"
import { resetDrafts } from "../../src/reset/boundary.ts"
import { notesToolHandlers } from "../../src/notes/notesHandlers.ts"
import { type FakeSessionOptions, makeFakeSession } from "./FakePiSession.ts"
import { liveNotesLayer } from "./notesStoreFixtures.ts"
import { emptyTally } from "../../src/window/tally.ts"

/**
 * A notes history with no history (git off, no repository): history_windows
 * and the windows view show the branch's own facts. Any other call is a defect.
 */
export const noNotesVersions = Layer.mock(NotesVersions, { sessionChanges: () => Effect.succeed(Option.none()) })

/** The live store and a history on `git` (the system git unless a test injects one), with the window room it follows. */
export const historyLayer = (git: GitRunner = systemGit) =>
  NotesVersionsLive.layerWith(git).pipe(Layer.provideMerge(Layer.mergeAll(liveNotesLayer, TraceLive.layerTest, WindowLive.layer, NoticesLive.layer)))

/** `git args` in `cwd`, for checking what the history holds. */
export const gitIn = (cwd: string, ...args: ReadonlyArray<string>): string =>
  execFileSync("git", [...args], { cwd, encoding: "utf8", env: { ...process.env, LC_ALL: "C" } })

export const SessionId = "hist-session-0001"

/** A window as a boundary hands it to the history: the id a real one gets from its marker, here made up per w-number. */
export const testWindow = (ordinal: number, id = `pcx:test:w${ordinal}`) => ({ id, ordinal })

/**
 * Window `ordinal` ends at a reset, as the Window room tells the rooms that
 * follow it (the notes history commits it then): a window of no entries of
 * its own, since the notes are what the commit reads.
 */
export const windowEnds = (ordinal: number, id = testWindow(ordinal).id) =>
  Window.use((window) =>
    window.reset({
      from: { id, ordinal, isRoot: ordinal === 1, startedAt: undefined, entries: [], tail: [], endedBy: undefined, tally: emptyTally() },
      to: { id: `${id}:next`, ordinal: ordinal + 1 },
      source: "tool"
    })
  )

/** A fake Pi session whose notes root is `root`, calls to the notes tools, and to the history. */
export const historySession = (root: string, options: FakeSessionOptions = {}) => {
  const session = makeFakeSession({
    sessionId: SessionId,
    cwd: root,
    settings: { "pi-context": { notesRoot: root } },
    model: { provider: "test", id: "hist-model", contextWindow: 100_000 },
    ...options
  })
  const tool = (name: keyof typeof notesToolHandlers, params: unknown) => Effect.provide(notesToolHandlers[name](params), session.layer)
  const withHistory = <A, E, R>(f: (history: NotesVersions["Service"]) => Effect.Effect<A, E, R>) => Effect.provide(NotesVersions.use(f), session.layer)
  /** A window boundary, then waiting for its commit (a hook never waits). */
  const endWindow = (ordinal: number, id?: string) => Effect.andThen(withHistory(() => windowEnds(ordinal, id)), NotesVersions.use((history) => history.awaitCommits(60_000)))
  /**
   * The session ends in window `ordinal` (the branch given its markers first,
   * each window's id as `testWindow` names it), as Pi's shutdown tells the Window room.
   */
  const endSession = (ordinal: number) =>
    Effect.gen(function*() {
      for (let w = 2; w <= ordinal; w++) {
        const windowId = testWindow(w).id
        for (const draft of resetDrafts(windowId, "tool", "boot")) if (draft.type === "custom" || draft.type === "custom_message") session.append(draft)
      }
      yield* withHistory(() => Window.use((window) => window.sessionEnding))
    })
  return { session, tool, withHistory, endWindow, endSession }
}

export const tempRoot = (prefix: string) => FileSystem.FileSystem.use((fs) => fs.makeTempDirectoryScoped({ prefix }))
