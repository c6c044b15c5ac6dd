/**
 * notes_list with a glob over 20,000 notes (four homes of 5,000, in folders of
 * 100): the first call walks and stats every note, later calls read the
 * watched cache. Prints the median of each, and how many pages a listing with
 * the tool's 100 ms scan budget took. Writes bench/results/listScale.json.
 *
 *   npm exec -- node bench/listScale.ts
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer, ManagedRuntime } from "effect"
import { homeSegments, type NotesIdentity } from "../src/notes/identity.ts"
import { scanDeadlineOf } from "../src/kernel/scanDeadline.ts"
import { layerWithoutDependencies as notesLayer } from "../src/notes/NotesStoreLive.ts"
import { NotesStore } from "../src/notes/NotesStore.ts"
import { CurrentScanDeadline } from "../src/kernel/CurrentScanDeadline.ts"

const Homes = ["session", "project", "user", "agent"] as const
const PerHome = 5_000

const root = realpathSync(mkdtempSync(join(tmpdir(), "pi-list-bench-")))
const identity: NotesIdentity = { root, sessionId: "bench", projectKey: "bench-0000abcd", agentName: "pi", modelSlug: "m" }
for (const home of Homes) {
  const dir = join(root, ...homeSegments(identity, home))
  for (let i = 0; i < PerHome; i++) {
    if (i % 100 === 0) mkdirSync(join(dir, `topic-${Math.floor(i / 100)}`), { recursive: true })
    writeFileSync(join(dir, `topic-${Math.floor(i / 100)}`, `note-${2000 - (i % 40)}-${i}.md`), `# ${home} ${i}\n`)
  }
}

const runtime = ManagedRuntime.make(notesLayer.pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))))
const budgeted = <A, E>(effect: Effect.Effect<A, E, NotesStore>) =>
  effect.pipe(Effect.provideService(CurrentScanDeadline, () => scanDeadlineOf(100, () => performance.now())))

const listAll = async () => {
  let pages = 0
  let rows = 0
  let cursor: string | undefined
  const started = performance.now()
  let first = 0
  do {
    const start = performance.now()
    const page = await runtime.runPromise(budgeted(NotesStore.use((store) =>
      store.list(identity, { pattern: "**/*-1999*", limit: 20, ...(cursor === undefined ? {} : { cursor }) }))))
    if (pages === 0) first = performance.now() - start
    pages++
    rows += page.rows.length
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return { first, total: performance.now() - started, pages, rows }
}

try {
  const cold = await listAll()
  const warm: Array<number> = []
  for (let i = 0; i < 7; i++) warm.push((await listAll()).first)
  warm.sort((a, b) => a - b)
  const figures = { notes: Homes.length * PerHome, cold_first_page_ms: Math.round(cold.first), warm_first_page_ms: Math.round(warm[3]!), pages: cold.pages, rows: cold.rows }
  console.log(JSON.stringify(figures))
  writeFileSync(join(dirname(fileURLToPath(import.meta.url)), "results", "listScale.json"), `${JSON.stringify(figures, null, 2)}\n`)
} finally {
  await runtime.dispose()
  rmSync(root, { recursive: true, force: true })
}
