/**
 * History tools on a 100,000-entry session. The first call builds the index;
 * every later call first appends 10 entries (a short turn) and then runs one
 * of list / search / read through the real tool handlers and the runtime's
 * History and Window layers, with no notes history (git off), over the live
 * PiSession port (made per call, as Pi's events make it) reading a stand-in
 * for Pi's SessionManager (getEntries() copies the entry list, getBranch()
 * and the branch tail walk parents from the leaf). The first call is timed
 * once the heap has settled after the session was built. Writes
 * bench/results/history.json.
 *
 *   npm exec -- node bench/history.ts
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { Effect, Layer, ManagedRuntime } from "effect"
import type { RawEntry } from "../src/kernel/entries.ts"
import { CustomType } from "../src/kernel/protocol.ts"
import type { ToolOutcome } from "../src/kernel/toolOutcome.ts"
import * as HistoryLive from "../src/history/HistoryLive.ts"
import * as PiSessionLive from "../src/pi/PiSessionLive.ts"
import * as WindowLive from "../src/window/WindowLive.ts"
import { PiSession } from "../src/kernel/PiSession.ts"
import { historyToolHandlers } from "../src/history/historyHandlers.ts"
import { noNotesVersions } from "../test/support/notesVersionsFixtures.ts"
import { median } from "./support/stats.ts"

const ENTRIES = 100_000
const MARKER_EVERY = 5_000
const ROUNDS = 30
const APPENDED_PER_ROUND = 10

const words = ["parser", "config", "router", "migration", "cache", "schema", "token", "layer", "queue", "index"]
const fileEntries: Array<RawEntry> = []
const byId = new Map<string, RawEntry>()
let leafId: string | null = null
let clock = Date.parse("2025-01-01T00:00:00.000Z")
let callCounter = 0

const append = (type: string, fields: Record<string, unknown>): void => {
  const id = (fileEntries.length + 1).toString(16).padStart(8, "0")
  clock += 1500
  const entry: RawEntry = { type, id, parentId: leafId, timestamp: new Date(clock).toISOString(), ...fields }
  fileEntries.push(entry)
  byId.set(id, entry)
  leafId = id
}
const message = (body: Record<string, unknown>) => append("message", { message: { timestamp: clock, ...body } })

/**
 * Roughly `size` characters of plausible tool output mentioning `word`. Round-tripped through JSON so it is
 * a flat string, as Pi's are when a session is loaded from its JSONL file (`repeat` builds a rope).
 */
const output = (word: string, size: number) => {
  const line = `src/${word}/module.ts:42: export function ${word}Handler(input: string) { return input.trim() }\n`
  return JSON.parse(JSON.stringify(line.repeat(Math.max(1, Math.round(size / line.length))))) as string
}

/** One turn: a user prompt, an assistant message with 1-3 tool calls, their results, the assistant's answer. */
const turn = (n: number, word: string) => {
  message({ role: "user", content: `Please look at the ${word} code (request ${n}).` })
  const calls = 1 + (n % 3)
  const ids = Array.from({ length: calls }, () => `call_${++callCounter}`)
  message({
    role: "assistant",
    content: [
      { type: "text", text: `I will inspect the ${word} module.` },
      ...ids.map((id, i) => ({ type: "toolCall", id, name: i === 0 ? "read" : "bash", arguments: { path: `src/${word}/module.ts`, n } }))
    ],
    stopReason: "toolUse"
  })
  ids.forEach((id, i) =>
    message({ role: "toolResult", toolCallId: id, toolName: i === 0 ? "read" : "bash", content: [{ type: "text", text: output(word, 300 + (n * 37) % 1500) }], isError: n % 17 === 0 })
  )
  message({ role: "assistant", content: [{ type: "text", text: `The ${word} module looks fine; request ${n} done.` }], stopReason: "stop" })
}

let turnNumber = 0
let windowNumber = 0
let sinceMarker = 0
while (fileEntries.length < ENTRIES) {
  if (sinceMarker >= MARKER_EVERY) {
    const windowId = `pcx:bench000:${(++windowNumber).toString(16).padStart(8, "0")}`
    append("custom", { customType: CustomType.resetMarker, data: { windowId } })
    append("custom_message", { customType: CustomType.boot, content: `boot of ${windowId}`, display: false, details: { windowId } })
    sinceMarker = 0
  }
  const before = fileEntries.length
  // The first window holds the one mention of "heliotrope" a later search must find.
  turn(turnNumber, turnNumber === 3 ? "heliotrope" : words[turnNumber % words.length]!)
  turnNumber++
  sinceMarker += fileEntries.length - before
}

/**
 * Pi's SessionManager as the port reads it, over the entries above: getEntries() copies the list without
 * the header, getBranch() walks parents by id from the leaf, getEntryCount() counts the entries by id.
 */
const sessionManager = {
  getSessionId: () => "bench000-0000-7000-8000-000000000000",
  getHeader: () => undefined,
  getEntries: () => fileEntries.filter((entry) => entry.type !== "session"),
  getEntryCount: () => byId.size,
  getLeafId: () => leafId,
  getLeafEntry: () => (leafId === null ? undefined : byId.get(leafId)),
  getEntry: (id: string) => byId.get(id),
  getBranch: (fromId?: string) => {
    const path: Array<RawEntry> = []
    const startId = fromId ?? leafId
    for (let current = startId === null ? undefined : byId.get(startId); current !== undefined;) {
      path.push(current)
      current = current.parentId === null ? undefined : byId.get(current.parentId)
    }
    return path.reverse()
  }
}
/** The live PiSession port, made afresh for each tool call as Pi's events make it. */
const port = () =>
  PiSessionLive.make({} as ExtensionAPI, { sessionManager, cwd: "/bench" } as unknown as ExtensionContext, { show: () => {}, chatShowsEntries: () => false })
// history_windows reads the Window room beside the History index, and each window's committed note
// changes from the notes history: none here, so the first call times the index and the windows' facts.
const runtime = ManagedRuntime.make(Layer.mergeAll(HistoryLive.layer, WindowLive.layer, noNotesVersions))

// A promise, not runSync: the first regex a tool is given loads the regex engine (an import).
const timed = async (effect: Effect.Effect<ToolOutcome, never, any>): Promise<{ readonly ms: number; readonly outcome: ToolOutcome }> => {
  const start = performance.now()
  const outcome = await runtime.runPromise(Effect.provideService(effect, PiSession, port()))
  return { ms: performance.now() - start, outcome }
}

const entryCount = fileEntries.length
// Pi loads a session, then the model thinks before its first history call. Building the session above
// left V8 collecting and compiling on its background threads, which on 2 cores would be timed as the
// first call's: the runtime is built and the heap settles first, as it has by then in Pi.
await runtime.runPromise(Effect.void)
await new Promise((resolve) => setTimeout(resolve, 250))
const first = await timed(historyToolHandlers.history_windows({}))
if (first.outcome._tag !== "Ok") throw new Error(first.outcome.text)

type Kind = "list" | "list older" | "search recent" | "read"
const calls: ReadonlyArray<readonly [Kind, () => Effect.Effect<ToolOutcome, never, any>]> = [
  ["list", () => historyToolHandlers.history_list({})],
  ["search recent", () => historyToolHandlers.history_search({ query: "request", limit: 10 })],
  ["read", () => historyToolHandlers.history_read({ seq: 1000 + callCounter, limit: 4000 })],
  ["list older", () => historyToolHandlers.history_list({ roles: ["user", "assistant"], before: 50_000, limit: 50 })]
]
const samples: Array<number> = []
const portSamples: Array<number> = []
const readEntries = PiSession.use((pi) => pi.entries)
const byKind = new Map<Kind, Array<number>>()
for (let round = 0; round < ROUNDS; round++) {
  const target = fileEntries.length + APPENDED_PER_ROUND
  while (fileEntries.length < target) {
    message({ role: "user", content: `follow-up ${round}` })
    if (fileEntries.length < target) message({ role: "assistant", content: [{ type: "text", text: `reply ${round}` }], stopReason: "stop" })
  }
  const portStart = performance.now()
  runtime.runSync(Effect.provideService(readEntries, PiSession, port()))
  portSamples.push(performance.now() - portStart)
  const [kind, call] = calls[round % calls.length]!
  const { ms, outcome } = await timed(call())
  if (outcome._tag !== "Ok") throw new Error(`${kind}: ${outcome.text}`)
  samples.push(ms)
  byKind.set(kind, [...(byKind.get(kind) ?? []), ms])
}

// Not part of the median: a search that must scan the whole session back to the first window.
message({ role: "user", content: "where was heliotrope?" })
const deep = await timed(historyToolHandlers.history_search({ query: "heliotrope", roles: ["tool"] }))
const deepRegex = await timed(historyToolHandlers.history_search({ query: "heliotrope\\w+", regex: true, roles: ["tool"] }))
await runtime.dispose()

const round2 = (ms: number) => Math.round(ms * 100) / 100
const next = median(samples)

console.log(`history tools on ${entryCount.toLocaleString("en-US")} entries (reset marker every ~${MARKER_EVERY.toLocaleString("en-US")}):`)
console.log(`  first call (index build + history_windows): ${round2(first.ms)} ms`)
console.log(`  later calls, ${APPENDED_PER_ROUND} entries appended before each, median of ${ROUNDS}: ${round2(next)} ms (max ${round2(Math.max(...samples))} ms)`)
for (const [kind, values] of byKind) console.log(`    ${kind}: median ${round2(median(values))} ms over ${values.length}`)
console.log(`    of each call, reading PiSession.entries (Pi's getEntries() copies the list): median ${round2(median(portSamples))} ms`)
console.log(`  full-session search for a word from the first window: literal ${round2(deep.ms)} ms, regex ${round2(deepRegex.ms)} ms`)
console.log(`  target: first call < 150 ms -> ${first.ms < 150 ? "met" : "MISSED"}; later calls < 20 ms -> ${next < 20 ? "met" : "MISSED"}`)

const out = join(dirname(fileURLToPath(import.meta.url)), "results", "history.json")
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, `${JSON.stringify({ first_call_ms: round2(first.ms), next_call_ms: round2(next) }, null, 2)}\n`)
