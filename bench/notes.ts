/**
 * Notes store figures: a snapshot of five homes with 2,000 notes each plus
 * the boot render, and notes_search over 10,000 notes (a query that matches
 * few notes, so every note is read). Medians over several runs after a
 * warm-up. Writes bench/results/notes.json.
 *
 * - first_snapshot_ms: the first snapshot + render of a fresh store (a new
 *   runtime each run), which walks and stats every note and starts the watchers.
 * - snapshot_render_ms: later snapshots + render of one store; before each run
 *   another "process" (a plain writeFileSync, outside the timing) rewrites one
 *   note in place, and the boot must show it first with its new title.
 *
 * - commit_window_ms and the hook figures of the notes history: see
 *   bench/support/notesVersionsBench.ts.
 * - sync_push_ms, sync_pull_ms and the hook with sync on and off: see
 *   bench/support/notesSyncBench.ts; sync_push_ms_400_notes and
 *   sync_pull_ms_400_notes are the same rounds over 100 notes per synced home.
 * - restore_20k_ms: `/pi-context notes restore @user` over 20,000 changed
 *   notes; see bench/support/notesRestoreBench.ts.
 *
 *   npm exec -- node bench/notes.ts
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer, ManagedRuntime } from "effect"
import { renderBoot } from "../src/boot/boot.ts"
import { Defaults } from "../src/settings/policy.ts"
import { homeSegments, type NotesIdentity, projectKeyOf } from "../src/notes/identity.ts"
import { layerWithoutDependencies as notesLayer } from "../src/notes/NotesStoreLive.ts"
import { NotesStore } from "../src/notes/NotesStore.ts"
import { benchNotesVersions, type VersionsFigures } from "./support/notesVersionsBench.ts"
import { benchNotesSync, type SyncFigures } from "./support/notesSyncBench.ts"
import { benchNotesRestore, type RestoreFigures, RestoreNotes } from "./support/notesRestoreBench.ts"
import { median } from "./support/stats.ts"
import { Homes } from "../src/kernel/homes.ts"

const NotesPerHome = 2_000
const SmallNotesPerHome = 100
const Runs = 9
const Warmup = 2


const noteText = (home: string, i: number): string =>
  `---\ncreated: 2025-01-01T00:00:00.000Z\nupdated: 2025-01-01T00:00:00.000Z\norigin: session:bench\n---\n# ${home} note ${i}\n\n` +
  `Decision ${i}: keep the ${home} index short.\n`.repeat(8) +
  (i % 1000 === 7 ? "The needle-phrase appears here.\n" : "")

/** Five homes, `NotesPerHome` notes each, in folders of 100, plus a MAP per home. */
const seededNote = (dir: string, i: number): string => join(dir, `topic-${Math.floor(i / 100)}`, `note-${i}.md`)

const seed = (identity: NotesIdentity, perHome = NotesPerHome): void => {
  for (const home of Homes) {
    const dir = join(identity.root, ...homeSegments(identity, home))
    for (let i = 0; i < perHome; i++) {
      if (i % 100 === 0) mkdirSync(join(dir, `topic-${Math.floor(i / 100)}`), { recursive: true })
      writeFileSync(seededNote(dir, i), noteText(home, i))
    }
    writeFileSync(join(dir, "MAP.md"), `# ${home} map\n` + Array.from({ length: 30 }, (_, i) => `- topic-${i}/note-${i}: what it holds`).join("\n"))
  }
}

const timeRuns = async (run: () => Promise<unknown>): Promise<ReadonlyArray<number>> => {
  for (let i = 0; i < Warmup; i++) await run()
  const times: Array<number> = []
  for (let i = 0; i < Runs; i++) {
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  return times
}

const FirstRuns = 5

const makeRuntime = () => ManagedRuntime.make(notesLayer.pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))))

export const main = async (): Promise<
  { readonly first_snapshot_ms: number; readonly snapshot_render_ms: number; readonly search_10k_ms: number } & VersionsFigures & SyncFigures & RestoreFigures & { readonly sync_push_ms_400_notes: number; readonly sync_pull_ms_400_notes: number }
> => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "pi-notes-bench-")))
  // The project key a session with this root as its cwd derives, so the history bench commits these very homes.
  const identity: NotesIdentity = { root, sessionId: "bench-session", projectKey: projectKeyOf(root), agentName: "pi", modelSlug: "bench-model" }
  const runtime = makeRuntime()
  try {
    seed(identity)
    const bootIdentity = {
      agentName: "pi",
      model: "bench/bench-model",
      modelSlug: "bench-model",
      sessionId: "bench-session",
      rootWindowId: "root",
      currentWindowId: "w2",
      previousWindowId: "w1"
    }
    let bootBytes = 0
    let bootText = ""
    const snapshotAndRender = (on: typeof runtime = runtime) =>
      on.runPromise(Effect.gen(function*() {
        const snapshot = yield* (yield* NotesStore).snapshot(identity)
        const boot = renderBoot({ identity: bootIdentity, snapshot, budgetTokens: Defaults.bootBudgetTokens, now: snapshot.takenAt })
        bootBytes = boot.text.length
        bootText = boot.text
        return boot
      }))

    const firstTimes: Array<number> = []
    for (let i = 0; i < FirstRuns; i++) {
      const fresh = makeRuntime()
      try {
        // The store's layer is built before the clock starts: the figure is the snapshot's own cost.
        await fresh.context()
        const start = performance.now()
        await snapshotAndRender(fresh)
        firstTimes.push(performance.now() - start)
      } finally {
        await fresh.dispose()
      }
    }

    // Before each timed snapshot, one note of the session home is rewritten in place by "someone else".
    let edits = 0
    const sessionDir = join(root, ...homeSegments(identity, "session"))
    const editedSnapshot = async () => {
      const i = 1_100 + edits
      const title = `session note ${i} edited ${++edits}`
      writeFileSync(join(sessionDir, `topic-${Math.floor(i / 100)}`, `note-${i}.md`), `# ${title}\n\nRewritten in place.\n`)
      await snapshotAndRender()
      if (!bootText.includes(title)) throw new Error(`the boot after an in-place edit does not show "${title}"`)
    }
    let hits = 0
    // Only the session and project homes (4,000 notes) would be searched with a home filter; search all five: 10,000 notes.
    const search = () =>
      runtime.runPromise(Effect.gen(function*() {
        const result = yield* (yield* NotesStore).search(identity, { query: "needle-phrase", limit: 20 })
        hits = result.hits.length
        return result
      }))

    await snapshotAndRender()
    const snapshotTimes = await timeRuns(editedSnapshot)
    const searchTimes = await timeRuns(search)
    const history = await benchNotesVersions(identity, seededNote)
    const sync = await benchNotesSync(identity, seededNote, NotesPerHome)
    // The same sync over homes of a more usual size: 100 notes in each synced home.
    const smallRoot = realpathSync(mkdtempSync(join(tmpdir(), "pi-notes-bench-small-")))
    const small = { ...identity, root: smallRoot, projectKey: projectKeyOf(smallRoot) }
    seed(small, SmallNotesPerHome)
    const smallSync = await benchNotesSync(small, seededNote, SmallNotesPerHome).finally(() => rmSync(smallRoot, { recursive: true, force: true }))
    const restore = await benchNotesRestore()
    const figures = {
      first_snapshot_ms: Number(median(firstTimes).toFixed(2)),
      snapshot_render_ms: Number(median(snapshotTimes).toFixed(2)),
      search_10k_ms: Number(median(searchTimes).toFixed(2)),
      ...history,
      ...sync,
      sync_push_ms_400_notes: smallSync.sync_push_ms,
      sync_pull_ms_400_notes: smallSync.sync_pull_ms,
      ...restore
    }
    console.log(`notes: first snapshot + boot render of a fresh store over ${Homes.length} x ${NotesPerHome} notes: median ${figures.first_snapshot_ms} ms (target < 50)`)
    console.log(`notes: snapshot + boot render over ${Homes.length} x ${NotesPerHome} notes: median ${figures.snapshot_render_ms} ms (target < 50, one note edited in place before each), boot ${bootBytes} chars`)
    console.log(`notes: notes_search over ${Homes.length * NotesPerHome} notes: median ${figures.search_10k_ms} ms (target < 100), ${hits} hits`)
    console.log(`notes: history commit of a window's ${20} changed notes in a ${Homes.length * NotesPerHome}-note root: median ${figures.commit_window_ms} ms (target < 100); first commit of every note ${figures.first_commit_ms} ms`)
    console.log(`notes: turn_end at a reset boundary: median ${figures.boundary_hook_ms_with_commit} ms with the history's commit forked, ${figures.boundary_hook_ms_without_commit} ms without a history`)
    console.log(`notes: sync of ${20} changed notes (${4 * NotesPerHome} notes synced) with a local remote: push median ${figures.sync_push_ms} ms, pull median ${figures.sync_pull_ms} ms (target < 300 each); with ${4 * SmallNotesPerHome} notes synced: push ${figures.sync_push_ms_400_notes} ms, pull ${figures.sync_pull_ms_400_notes} ms`)
    console.log(`notes: the first sync rounds of ${figures.first_pull_notes} notes with a local remote: first push ${figures.first_push_ms} ms, another machine's first pull into an empty root ${figures.first_pull_ms} ms (load average ${figures.load_average_1m}; docs/sync.md states this pull)`)
    console.log(`notes: turn_end at a reset boundary with the history: median ${figures.boundary_hook_ms_sync_on} ms with a sync remote, ${figures.boundary_hook_ms_sync_off} ms without`)
    console.log(`notes: restore of @user over ${RestoreNotes} changed notes (uncommitted hand edits, saved first): ${figures.restore_20k_ms} ms (goal < 10,000; load average ${figures.restore_load_average_1m})`)
    const out = join(dirname(fileURLToPath(import.meta.url)), "results", "notes.json")
    mkdirSync(dirname(out), { recursive: true })
    writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`)
    return figures
  } finally {
    await runtime.dispose()
    rmSync(root, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
