/**
 * What grows with a long session, and how fast. Each cost pi-context pays
 * per request, per reset, per command or once per start is measured on
 * branches of about 4,000, 40,000 and 100,000 entries in two shapes:
 *
 *   windows  windows of about 1,000 entries of work each, as resets write
 *            them (the marker, one context edit per message still in Pi's
 *            context, the boot, the continuation): a cost that stays flat
 *            here depends on the window, one that grows depends on the session;
 *   one      the same work in one root window (a session that never reset,
 *            or grew while `/pi-context off`): a window-bound cost grows here.
 *
 * Figures are the process's CPU time (wall time on a loaded machine reads
 * preemption as growth). Every figure goes through the real services (the
 * runtime's layers), with Pi's real SessionManager (in memory, preloaded)
 * behind the real PiSession port over a stand-in for the rest of Pi's
 * context (no model calls). The growth exponent k (t ∝ n^k) is fitted over
 * the three sizes: about 0 is constant, about 1 linear (up to about 1.4, see
 * `order`), 2 quadratic.
 * Then `sessionSignals` on 150 windows of 1,000 entries (issue 43's case).
 *
 * Writes bench/results/growth.json. Never asserts on time.
 *
 *   npm exec -- node bench/growth.ts          (GROWTH_SIZES=4000,40000 picks the sizes)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { ExtensionAPI, ExtensionContext, SessionEntry } from "@earendil-works/pi-coding-agent"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { Effect, Layer, ManagedRuntime } from "effect"
import { CustomType, ToolName } from "../src/kernel/protocol.ts"
import { newWindowId, rootWindowId } from "../src/kernel/windowId.ts"
import { PiSession } from "../src/kernel/PiSession.ts"
import * as PiSessionLive from "../src/pi/PiSessionLive.ts"
import { appLayer } from "../src/runtime.ts"
import * as WindowLive from "../src/window/WindowLive.ts"
import * as HistoryLive from "../src/history/HistoryLive.ts"
import { Window } from "../src/window/Window.ts"
import { Lifecycle } from "../src/reset/Lifecycle.ts"
import { Boots } from "../src/boot/Boots.ts"
import { resetReport } from "../src/reset/resetReport.ts"
import { sessionSignals } from "../src/window/signals.ts"
import { historyToolHandlers } from "../src/history/historyHandlers.ts"
import { withTimeLimit } from "../src/kernel/timeLimit.ts"
import { median } from "./support/stats.ts"

const Sizes = (process.env.GROWTH_SIZES ?? "4000,40000,100000").split(",").map(Number)
const WindowWork = 1_000

const root = mkdtempSync(join(tmpdir(), "pi-context-growth-"))
const agentDir = join(root, "agent")
const notesRoot = join(root, "notes")
const cwd = join(root, "project")
for (const dir of [agentDir, notesRoot, cwd]) mkdirSync(dir, { recursive: true })
// Pi and pi-context read these; the real ~/.pi is never touched.
process.env.PI_CODING_AGENT_DIR = agentDir
process.env.PI_CONTEXT_NOTES_ROOT = notesRoot

// ---------------------------------------------------------------------------
// The sessions.

const words = ["parser", "config", "router", "migration", "cache", "schema", "token", "layer", "queue", "index"]
let sessionCounter = 0

/**
 * A session file's entries: header, then about `size` entries in one chain.
 * With `resets`, a boundary every `WindowWork` entries of work, written as a
 * reset writes it today; each window reads files and reruns commands of the
 * one before.
 */
const synthetic = (size: number, resets: boolean, windowsWanted = Infinity): { readonly entries: Array<SessionEntry>; readonly sessionId: string } => {
  const sessionId = `00000000-0000-7000-8000-${(++sessionCounter).toString(16).padStart(12, "0")}`
  const entries: Array<Record<string, unknown>> = [{ type: "session", version: 3, id: sessionId, timestamp: new Date(0).toISOString(), cwd }]
  let leafId: string | null = null
  let clock = Date.parse("2025-01-01T00:00:00.000Z")
  let calls = 0
  const append = (fields: Record<string, unknown>): string => {
    const id = entries.length.toString(16).padStart(8, "0")
    clock += 1500
    entries.push({ id, parentId: leafId, timestamp: new Date(clock).toISOString(), ...fields })
    leafId = id
    return id
  }
  /** Messages of the open window Pi's context still holds: what the next boundary hides. */
  let held: Array<string> = []
  const message = (body: Record<string, unknown>) => held.push(append({ type: "message", message: { timestamp: clock, ...body } }))
  const usage = (total: number) => ({ input: total - 50, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: total, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } })
  const boot = (windowId: string) =>
    held.push(append({ type: "custom_message", customType: CustomType.boot, content: `## Context window\nCurrent window: ${windowId}\n`, display: false, details: { windowId } }))
  const turn = (n: number, window: number) => {
    const word = words[n % words.length]!
    message({ role: "user", content: [{ type: "text", text: `Please look at the ${word} code (request ${n}).` }] })
    const ids = Array.from({ length: 1 + (n % 3) }, () => `call_${++calls}`)
    // Files and commands drawn from a pool that shifts by half a pool per window: each window redoes some of the last one's work.
    const pick = (k: number) => (window * 20 + ((n * 7 + k * 13) % 40))
    message({
      role: "assistant",
      content: [
        { type: "text", text: `I will inspect the ${word} module.` },
        ...ids.map((id, k) => ({
          type: "toolCall",
          id,
          name: k === 0 ? "read" : "bash",
          arguments: k === 0 ? { path: `src/${word}/file${pick(k)}.ts` } : { command: `npm test -- ${word}${pick(k)}` }
        }))
      ],
      api: "faux",
      provider: "faux",
      model: "faux-1",
      usage: usage(1_000 + (n % 500) * 10),
      stopReason: "toolUse"
    })
    ids.forEach((id, k) =>
      message({
        role: "toolResult",
        toolCallId: id,
        toolName: k === 0 ? "read" : "bash",
        content: [{ type: "text", text: `src/${word}/module.ts:42: export function ${word}Handler(input: string) { return input.trim() }\n`.repeat(3) }],
        details: {},
        isError: false
      })
    )
    message({ role: "assistant", content: [{ type: "text", text: `The ${word} module looks fine; request ${n} done.` }], api: "faux", provider: "faux", model: "faux-1", usage: usage(1_100 + (n % 500) * 10), stopReason: "stop" })
  }

  append({ type: "model_change", provider: "faux", modelId: "faux-1" })
  append({ type: "thinking_level_change", thinkingLevel: "off" })
  boot(rootWindowId(sessionId))
  let window = 0
  let work = 0
  for (let n = 0; entries.length - 1 < size && !(window + 1 >= windowsWanted && work >= WindowWork); n++) {
    if (resets && work >= WindowWork) {
      window++
      work = 0
      const windowId = newWindowId(sessionId, window.toString(16).padStart(8, "0"))
      append({ type: "custom", customType: CustomType.resetMarker, data: { windowId, source: "tool" } })
      for (const targetId of held) append({ type: "context_edit", targetId, replacement: null })
      held = []
      boot(windowId)
      held.push(append({ type: "custom_message", customType: CustomType.continuation, content: "Your context window was just reset.", display: false }))
    }
    const before = entries.length
    turn(n, window)
    work += entries.length - before
  }
  return { entries: entries as unknown as Array<SessionEntry>, sessionId }
}

// ---------------------------------------------------------------------------
// The Pi side: its real SessionManager, a stand-in for the rest of its context.

const model = { provider: "faux", id: "faux-1", contextWindow: 1_000_000, cost: { input: 3 } }

const piSessionOver = (manager: SessionManager): PiSession["Service"] => {
  const pi = {
    getSettings: () => ({}),
    appendEntry: (customType: string, data: unknown) => void manager.appendCustomEntry(customType, data),
    sendMessage: (message: { customType: string; content: string; display: boolean; details?: unknown }) =>
      void manager.appendCustomMessageEntry(message.customType, message.content, message.display, message.details),
    getActiveTools: () => [],
    setActiveTools: () => {},
    getAllTools: () => []
  } as unknown as ExtensionAPI
  const ctx = {
    sessionManager: manager,
    cwd,
    model,
    // Pi's own figure walks Pi's whole session: Pi's cost, not measured here.
    getContextUsage: () => undefined,
    isProjectTrusted: () => false,
    isIdle: () => true,
    hasPendingMessages: () => false,
    hasUI: false,
    mode: "print",
    ui: { notify: () => {}, setStatus: () => {} },
    abort: () => {},
    signal: undefined
  } as unknown as ExtensionContext
  return PiSessionLive.make(pi, ctx, { show: () => {}, chatShowsEntries: () => false })
}

const appendMessage = (manager: SessionManager, n: number) =>
  manager.appendMessage({ role: "user", content: [{ type: "text", text: `one more request ${n}` }], timestamp: Date.now() })

// ---------------------------------------------------------------------------
// Timing.

/**
 * The process's CPU time, in ms: on a machine shared with other work, wall
 * time grows with the load and the longer runs are preempted more, which
 * reads as growth; the CPU a run takes does not. No collection is forced
 * before a run: the collector's threads would still be sweeping, on this
 * process's clock, while it runs.
 */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
const timeSync = (run: () => unknown): number => {
  const start = cpuMs()
  run()
  return cpuMs() - start
}
const timeAsync = async (run: () => Promise<unknown>): Promise<number> => {
  const start = cpuMs()
  await run()
  return cpuMs() - start
}

type Measures = Record<string, number>

/** Fresh services for one measurement: built outside the timing. */
const freshRuntime = async <R, E>(layer: Layer.Layer<R, E>) => {
  const runtime = ManagedRuntime.make(layer)
  await runtime.context()
  return runtime
}

const FreshRuns = 3
const WarmRuns = 15

const measureShape = async (size: number, resets: boolean): Promise<{ readonly entries: number; readonly windows: number; readonly figures: Measures }> => {
  const { entries } = synthetic(size, resets)
  const figures: Measures = {}
  const fresh: Record<string, Array<number>> = {}
  const keep = (name: string, ms: number) => (fresh[name] ??= []).push(ms)
  let windows = 0
  let appended = 0

  for (let run = 0; run < FreshRuns; run++) {
    // Session start, on services that have read nothing yet (the Window room's first walk included).
    {
      const manager = SessionManager.inMemory(cwd, undefined, entries.slice())
      const session = piSessionOver(manager)
      const runtime = await freshRuntime(appLayer())
      const withSession = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provideService(effect, PiSession, session) as Effect.Effect<A, E>
      keep("session start", await timeAsync(() => runtime.runPromise(withSession(Lifecycle.use((l) => l.sessionStarted("resume"))))))
      // The report, first on services that have read the windows' signals nowhere yet, then again.
      keep("/pi-context report (first)", await timeAsync(() => runtime.runPromise(withSession(resetReport.run([])))))
      if (run === 0) {
        const messages = manager.buildSessionContext().messages as ReadonlyArray<{ readonly role: string }>
        const project = withSession(Lifecycle.use((l) => l.project(messages)))
        const report = withSession(resetReport.run([]))
        const spans = await runtime.runPromise(withSession(Window.use((w) => w.spans)))
        windows = spans.length
        const facts = await runtime.runPromise(withSession(Window.use((w) => w.windows)))
        const continuity = {
          previousOrdinal: facts.length,
          checkpointed: true,
          windowStarts: facts.flatMap(({ ordinal, startedAt }) => (startedAt === undefined ? [] : [{ ordinal, startedAt }]))
        }
        const render = withSession(Boots.use((boots) => boots.render({ windowId: "pcx:growth:next", previousWindowId: facts.at(-1)!.id, continuity })))
        const signalsAtReset = withSession(Effect.gen(function*() {
          const room = yield* Window
          return sessionSignals(yield* room.spans, yield* room.windows, 16_384)
        }))
        const held = withSession(Window.use((w) => w.heldByPi))
        const warm: Record<string, Array<number>> = {}
        for (let i = 0; i < WarmRuns; i++) {
          // Each sample after an append, as a real request, reset or command comes after one.
          appendMessage(manager, appended++)
          ;(warm["context hook projection"] ??= []).push(await timeAsync(() => runtime.runPromise(project)))
          appendMessage(manager, appended++)
          ;(warm["/pi-context report (again)"] ??= []).push(await timeAsync(() => runtime.runPromise(report)))
          appendMessage(manager, appended++)
          ;(warm["reset: sessionSignals"] ??= []).push(await timeAsync(() => runtime.runPromise(signalsAtReset)))
          appendMessage(manager, appended++)
          ;(warm["reset: ids Pi still holds"] ??= []).push(await timeAsync(() => runtime.runPromise(held)))
          ;(warm["boot render (notes snapshot)"] ??= []).push(await timeAsync(() => runtime.runPromise(render)))
        }
        // A window that has just begun at a reset, before its first reply: its usage is estimated from the branch.
        const windowId = newWindowId(manager.getSessionId(), "ffffffff")
        manager.appendCustomEntry(CustomType.resetMarker, { windowId, source: "tool" })
        manager.appendCustomMessageEntry(CustomType.boot, `## Context window\nCurrent window: ${windowId}\n`, false, { windowId })
        manager.appendCustomMessageEntry(CustomType.continuation, "Your context window was just reset.", false, undefined)
        const usage = withSession(Effect.andThen(Window.use((w) => w.forget), Window.use((w) => w.usage)))
        for (let i = 0; i < WarmRuns; i++) (warm["usage before the first reply"] ??= []).push(await timeAsync(() => runtime.runPromise(usage)))
        for (const [name, samples] of Object.entries(warm)) figures[name] = median(samples)
      }
      await runtime.dispose()
    }

    // The Window room alone: its first walk, then the walk after one append.
    {
      const manager = SessionManager.inMemory(cwd, undefined, entries.slice())
      const session = piSessionOver(manager)
      const runtime = await freshRuntime(WindowLive.layer)
      const spans = Effect.provideService(Window.use((w) => w.spans), PiSession, session)
      keep("Window room: first walk", timeSync(() => runtime.runSync(spans)))
      const incremental: Array<number> = []
      for (let i = 0; i < WarmRuns; i++) {
        appendMessage(manager, appended++)
        incremental.push(timeSync(() => runtime.runSync(spans)))
      }
      keep("Window room: after an append", median(incremental))
      await runtime.dispose()
    }

    // The history index: built by the first call, then a call after one append.
    {
      const manager = SessionManager.inMemory(cwd, undefined, entries.slice())
      const session = piSessionOver(manager)
      const runtime = await freshRuntime(Layer.mergeAll(HistoryLive.layer, WindowLive.layer))
      const list = Effect.provideService(
        withTimeLimit(ToolName.historyList)(historyToolHandlers[ToolName.historyList]({ limit: 20 })),
        PiSession,
        session
      ) as Effect.Effect<unknown>
      keep("history index: build (first call)", await timeAsync(() => runtime.runPromise(list)))
      const calls: Array<number> = []
      for (let i = 0; i < WarmRuns; i++) {
        appendMessage(manager, appended++)
        calls.push(await timeAsync(() => runtime.runPromise(list)))
      }
      keep("history index: a call after an append", median(calls))
      await runtime.dispose()
    }
  }
  // The fastest of the fresh runs: the one least disturbed by the rest of the machine.
  for (const [name, samples] of Object.entries(fresh)) figures[name] = Math.min(...samples)
  return { entries: entries.length - 1, windows, figures }
}

// ---------------------------------------------------------------------------
// Runs.

interface ShapeRun {
  readonly size: number
  readonly entries: number
  readonly windows: number
  readonly figures: Measures
}
const runs: Record<"windows" | "one", Array<ShapeRun>> = { windows: [], one: [] }
// Untimed: the code paths compiled before the first figure.
for (const resets of [true, false]) await measureShape(Sizes[0]!, resets)
for (const size of Sizes) {
  for (const shape of ["windows", "one"] as const) {
    const measured = await measureShape(size, shape === "windows")
    runs[shape].push({ size, ...measured })
    console.error(`  measured ${shape} at ${measured.entries} entries (${measured.windows} windows)`)
  }
}

/** The growth exponent, t ∝ n^k, fitted (least squares on the logarithms) over every branch size. */
const exponent = (list: ReadonlyArray<ShapeRun>, name: string): number => {
  const points = list.map((run) => [Math.log(run.entries), Math.log(Math.max(run.figures[name]!, 0.001))] as const)
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0)
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0)
  return variance === 0 ? 0 : covariance / variance
}
/**
 * A linear cost reads as k up to about 1.4 here: past the processor's caches
 * (the smallest branch fits in them) and with a larger heap for the
 * collector, each entry costs more (a walk of the branch: the same per entry
 * from 20,000 to 200,000; the ids Pi still holds: 0.13 then 0.29 µs).
 * A cost quadratic in the branch reads as 2.
 */
const order = (k: number): string => (k < 0.35 ? "constant" : k < 1.5 ? "linear" : "WORSE THAN LINEAR")

const names = Object.keys(runs.windows[0]!.figures)
const round3 = (ms: number) => Math.round(ms * 1000) / 1000
const cell = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(3)).padStart(8)
const loadAtEnd = loadavg()[1]!
console.log(`What grows with the session (CPU ms, median; first-use figures the fastest of ${FreshRuns} fresh runs, others of ${WarmRuns} after an append each):`)
console.log(
  `  ${"".padEnd(40)} ${runs.windows.map((r) => `w:${(r.entries / 1000).toFixed(0)}k`.padStart(8)).join(" ")}   ${
    runs.one.map((r) => `1:${(r.entries / 1000).toFixed(0)}k`.padStart(8)).join(" ")
  }   depends on   growth`
)
const rows: Record<string, { readonly dependsOn: string; readonly growth: string; readonly windows: ReadonlyArray<number>; readonly one: ReadonlyArray<number> }> = {}
for (const name of names) {
  const inWindows = exponent(runs.windows, name)
  const inOne = exponent(runs.one, name)
  // Flat while the windows stay the same size: the window's; growing there: the session's.
  const dependsOn = inWindows < 0.35 ? (inOne < 0.35 ? "neither" : "window") : "session"
  const growth = `${order(Math.max(inWindows, inOne))} (k=${inWindows.toFixed(2)} / ${inOne.toFixed(2)})`
  rows[name] = { dependsOn, growth, windows: runs.windows.map((r) => round3(r.figures[name]!)), one: runs.one.map((r) => round3(r.figures[name]!)) }
  console.log(
    `  ${name.padEnd(40)} ${runs.windows.map((r) => cell(r.figures[name]!)).join(" ")}   ${runs.one.map((r) => cell(r.figures[name]!)).join(" ")}   ${
      dependsOn.padEnd(10)
    }   ${growth}`
  )
}
console.log(`  (machine load average over the last 5 minutes: ${loadAtEnd.toFixed(1)}; the figures are CPU time, which the load disturbs far less than wall time)`)
console.log(`  (w: windows of about ${WindowWork.toLocaleString("en-US")} entries of work, ${runs.windows.map((r) => r.windows).join(" / ")} windows; 1: one root window. k: fitted exponent, windows / one)`)

// ---------------------------------------------------------------------------
// sessionSignals on issue 43's case: 150 windows of 1,000 entries.

const signalsCase = synthetic(Infinity, true, 150)
{
  const manager = SessionManager.inMemory(cwd, undefined, signalsCase.entries)
  const session = piSessionOver(manager)
  const runtime = await freshRuntime(WindowLive.layer)
  const room = runtime.runSync(Effect.provideService(Effect.all([Window.use((w) => w.spans), Window.use((w) => w.windows)]), PiSession, session))
  const [spans, facts] = room
  const first = timeSync(() => sessionSignals(spans, facts, 16_384))
  const again: Array<number> = []
  for (let i = 0; i < 10; i++) {
    appendMessage(manager, i)
    const [grown, grownFacts] = runtime.runSync(Effect.provideService(Effect.all([Window.use((w) => w.spans), Window.use((w) => w.windows)]), PiSession, session))
    again.push(timeSync(() => sessionSignals(grown, grownFacts, 16_384)))
  }
  console.log(
    `sessionSignals over ${spans.length} windows (${(signalsCase.entries.length - 1).toLocaleString("en-US")} entries): ` +
      `${round3(first)} ms read whole, ${round3(median(again))} ms at a reset (ended windows read before)`
  )
  rows["sessionSignals, 150 windows: read whole"] = { dependsOn: "session", growth: "linear", windows: [round3(first)], one: [] }
  rows["sessionSignals, 150 windows: at a reset"] = { dependsOn: "window", growth: "linear", windows: [round3(median(again))], one: [] }
  await runtime.dispose()
}

rmSync(root, { recursive: true, force: true })
const out = join(dirname(fileURLToPath(import.meta.url)), "results", "growth.json")
mkdirSync(dirname(out), { recursive: true })
writeFileSync(
  out,
  `${JSON.stringify({ load_average_5min: Math.round(loadAtEnd * 10) / 10, entries: runs.windows.map((r) => r.entries), windows: runs.windows.map((r) => r.windows), costs: rows }, null, 2)}\n`
)
