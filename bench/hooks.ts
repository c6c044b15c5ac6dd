/**
 * Per-turn hook latency of pi-context on a 50,000-entry session with 20
 * windows (the session of bench/projection.ts, from bench/support/syntheticSession.ts).
 *
 * Pi's real session (`createAgentSession` through the SDK harness, an
 * in-memory SessionManager preloaded with the synthetic entries) runs real
 * prompts through its agent loop on the faux model: two prompts in three are
 * a tool call (Pi's built-in `read` of a small file) then a text reply, the
 * third a text reply alone. The session so grows between samples as a real
 * one does (four entries a tool prompt, two a reply).
 *
 * pi-context's own handlers for `turn_start`, `message_end`, `agent_settled`
 * and `context_with_system` are wrapped, in Pi's extension runner, with a
 * stopwatch: each sample is the wall time from Pi calling the handler to its
 * promise settling, exactly as Pi awaits it (the runtime hop, the Effect
 * program, the PiSession port). `turn_end` and `agent_before_settle` are
 * registered only while a boundary may be written, so in this run (no reset,
 * no reminder due) they never are.
 *
 * Pi's own work around the hooks is not in those figures, but it is timed
 * too: Pi's boundary dispatch for `turn_end` and `agent_before_settle`
 * (`_dispatchTurnEndBoundary`, `_runBeforeSettleBoundary`: a preview of the
 * session's context before and after each handler, then the commit), which
 * Pi runs only when some extension handles the event; and a whole prompt,
 * against the same prompts on the same session shape with Pi alone
 * (alternated, as in bench/projection.ts).
 *
 * The run is the common case only: completed turns with no reset and no
 * budget reminder due (checked: no marker was written).
 *
 * Writes bench/results/hooks.json. Never asserts on time.
 *
 *   npm exec -- node bench/hooks.ts
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { CustomType } from "../src/kernel/protocol.ts"
import { createHarness, type Harness, repoRoot } from "../test/support/sdkHarness.ts"
import { syntheticSession, WINDOWS } from "./support/syntheticSession.ts"
import { median } from "./support/stats.ts"

/** Measured prompts; each is one or two turns, and settles once. */
const PROMPTS = 90
const WARMUP_PROMPTS = 15
const TARGET_MS = 5

/**
 * The hooks pi-context keeps registered. `turn_end` and `agent_before_settle`
 * are registered only while a boundary may be written, so in this no-reset
 * run they never are: their cost shows as Pi's boundary dispatch below.
 */
const hooks = ["turn_start", "message_end", "agent_settled", "context_with_system"] as const
type Hook = typeof hooks[number]

type Handler = (event: unknown, ctx: unknown) => unknown
interface RunnerExtension {
  readonly path: string
  readonly handlers: Map<string, Array<Handler>>
}

interface Sample {
  readonly ms: number
  readonly event: unknown
  readonly result: unknown
}

interface Side {
  readonly name: string
  readonly h: Harness
  readonly hooks: Record<Hook, Array<Sample>>
  /** Pi's own boundary dispatch (context previews, the handlers, the commit), which Pi skips when no extension handles the event. */
  readonly boundary: Record<"turn_end" | "agent_before_settle", Array<number>>
  readonly promptMs: Array<number>
  readonly entriesBefore: number
  readonly markersBefore: number
}

let recording = false

const markers = (h: Harness) => h.entries().filter((e) => e.type === "custom" && e.customType === CustomType.resetMarker).length

/** Stopwatch around an async method of the session instance (the agent's hooks call it through `this`). */
const timeMethod = (target: object, name: string, into: Array<number>): void => {
  const self = target as Record<string, (...args: Array<unknown>) => Promise<unknown>>
  const original = self[name]!.bind(target)
  self[name] = async (...args) => {
    const start = performance.now()
    const result = await original(...args)
    if (recording) into.push(performance.now() - start)
    return result
  }
}

const open = async (withPackage: boolean): Promise<Side> => {
  const h = await createHarness({
    loadPackage: withPackage,
    // A 2,500-entry window of tool work is ~250k tokens: a 1M-token model keeps it under the budget lines,
    // so every turn is an ordinary one (no reminder, no automatic reset).
    contextWindow: 1_000_000,
    tools: ["read"],
    sessionManager: (cwd) => SessionManager.inMemory(cwd, undefined, syntheticSession(cwd, withPackage))
  })
  writeFileSync(join(h.dirs.cwd, "module.ts"), "export const answer = 42\n".repeat(20))
  // One real prompt first: pi-context's runtime is loaded, Pi has usage, every hook has run once.
  h.script([fauxAssistantMessage("warm")])
  await h.prompt("warm up")
  if (h.errors.length > 0) throw new Error(h.errors.join("\n"))

  const side: Side = {
    name: withPackage ? "with pi-context" : "Pi alone",
    h,
    hooks: { turn_start: [], message_end: [], agent_settled: [], context_with_system: [] },
    boundary: { turn_end: [], agent_before_settle: [] },
    promptMs: [],
    entriesBefore: h.entries().length,
    markersBefore: markers(h)
  }
  timeMethod(h.session, "_dispatchTurnEndBoundary", side.boundary.turn_end)
  timeMethod(h.session, "_runBeforeSettleBoundary", side.boundary.agent_before_settle)
  if (!withPackage) return side

  // pi-context's handlers, as Pi's extension runner calls them, each wrapped with a stopwatch.
  const runner = h.session.extensionRunner as unknown as { extensions: ReadonlyArray<RunnerExtension> }
  for (const hook of hooks) {
    let wrapped = 0
    for (const extension of runner.extensions) {
      if (!extension.path.startsWith(repoRoot)) continue
      const handlers = extension.handlers.get(hook) ?? []
      extension.handlers.set(hook, handlers.map((handler) => async (event, ctx) => {
        const start = performance.now()
        const result = await handler(event, ctx)
        const ms = performance.now() - start
        if (recording) side.hooks[hook].push({ ms, event, result })
        return result
      }))
      wrapped += handlers.length
    }
    if (wrapped !== 1) throw new Error(`expected one pi-context ${hook} handler, found ${wrapped}`)
  }
  return side
}

const withSide = await open(true)
const withoutSide = await open(false)

for (let n = 0; n < WARMUP_PROMPTS + PROMPTS; n++) {
  recording = n >= WARMUP_PROMPTS
  const withTool = n % 3 !== 2
  // Alternate which side goes first so drift and GC land on both.
  for (const side of n % 2 === 0 ? [withSide, withoutSide] : [withoutSide, withSide]) {
    side.h.script([
      ...(withTool ? [fauxAssistantMessage([fauxToolCall("read", { path: "module.ts" })], { stopReason: "toolUse" })] : []),
      fauxAssistantMessage(`Done with step ${n}.`)
    ])
    const start = performance.now()
    await side.h.prompt(`Step ${n}: ${withTool ? "read module.ts and summarise it" : "say what comes next"}.`)
    if (recording) side.promptMs.push(performance.now() - start)
  }
}
recording = false

// Sanity (never on time): the session grew by real turns, no reset happened, turn_end answered nothing.
const sizes = new Map<Side, number>()
for (const side of [withSide, withoutSide]) {
  const { h } = side
  if (h.errors.length > 0) throw new Error(`${side.name}: ${h.errors.join("\n")}`)
  const grown = markers(h) - side.markersBefore
  if (grown !== 0) throw new Error(`${side.name}: a reset happened during the run (${grown} markers)`)
  const toolErrors = h.branch().filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.isError).length
  if (toolErrors > 0) throw new Error(`${side.name}: ${toolErrors} tool call(s) failed`)
  sizes.set(side, h.entries().length)
  await h.dispose()
}
const samples = withSide.hooks
for (const hook of hooks) if (samples[hook].length < 50) throw new Error(`only ${samples[hook].length} ${hook} samples`)

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
const round3 = (ms: number) => Math.round(ms * 1000) / 1000
const fmt = (ms: number) => round3(ms).toFixed(3).padStart(8)

const ms = (list: ReadonlyArray<Sample>) => list.map((sample) => sample.ms)
const rows: Array<{ readonly label: string; readonly ms: ReadonlyArray<number>; readonly target?: boolean }> = [
  { label: "turn_start", ms: ms(samples.turn_start), target: true },
  { label: "message_end (arms boundary hooks when needed)", ms: ms(samples.message_end), target: true },
  { label: "agent_settled", ms: ms(samples.agent_settled), target: true },
  { label: "context_with_system", ms: ms(samples.context_with_system), target: true }
]
const header = `  ${"".padEnd(50)} ${"samples".padStart(7)} ${"median".padStart(8)} ${"p90".padStart(8)} ${"min".padStart(8)} ${"max".padStart(8)}`
const line = (label: string, values: ReadonlyArray<number>, note = "") =>
  console.log(
    `  ${label.padEnd(50)} ${String(values.length).padStart(7)} ${fmt(median(values))} ${fmt(quantile(values, 0.9))} ` +
      `${fmt(Math.min(...values))} ${fmt(Math.max(...values))}   ${note}`
  )

console.log(
  `pi-context per-turn hooks on ${withSide.entriesBefore.toLocaleString("en-US")} -> ${sizes.get(withSide)!.toLocaleString("en-US")} entries, ` +
    `${WINDOWS} windows (${PROMPTS} prompts after ${WARMUP_PROMPTS} warm-up, two in three a tool call then a reply), ms:`
)
console.log(`${header}   target: median < ${TARGET_MS} ms`)
console.log("  pi-context's own handler, as Pi calls it")
for (const row of rows) {
  line(`  ${row.label}`, row.ms, row.target === true ? (median(row.ms) < TARGET_MS ? "met" : "MISSED") : "")
}
console.log("  Pi's boundary dispatch (Pi's code; near zero while no extension handles turn_end / agent_before_settle)")
line("  turn_end: _dispatchTurnEndBoundary", withSide.boundary.turn_end, `Pi alone: ${round3(median(withoutSide.boundary.turn_end))}`)
line("  agent_before_settle: _runBeforeSettleBoundary", withSide.boundary.agent_before_settle, `Pi alone: ${round3(median(withoutSide.boundary.agent_before_settle))}`)
console.log("  a whole prompt through Pi's loop (faux model)")
line("  with pi-context", withSide.promptMs)
line("  Pi alone", withoutSide.promptMs)
console.log(`  (target for reference: each of pi-context's hooks under ${TARGET_MS} ms on 50,000 entries)`)

const out = join(dirname(fileURLToPath(import.meta.url)), "results", "hooks.json")
mkdirSync(dirname(out), { recursive: true })
writeFileSync(
  out,
  `${
    JSON.stringify(
      {
        turn_start_ms: round3(median(ms(samples.turn_start))),
        message_end_ms: round3(median(ms(samples.message_end))),
        agent_settled_ms: round3(median(ms(samples.agent_settled))),
        context_ms: round3(median(ms(samples.context_with_system))),
        turn_end_dispatch_ms: round3(median(withSide.boundary.turn_end)),
        before_settle_dispatch_ms: round3(median(withSide.boundary.agent_before_settle)),
        prompt_ms_with: round3(median(withSide.promptMs)),
        prompt_ms_without: round3(median(withoutSide.promptMs))
      },
      null,
      2
    )
  }\n`
)
