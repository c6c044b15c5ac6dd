/**
 * Per-turn cost of the budget decision on a 50,000-entry session.
 * Runs `Budget.observeRequest` through the real service (injected policy,
 * resolved live on every call, and a stub Pi session) on a classified branch
 * with a reset marker every 4,000 entries. Writes bench/results/budget.json.
 *
 *   npm exec -- node bench/budget.ts
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { committedReminders, decide } from "../src/domain/budget.ts"
import type { WindowUsage } from "../src/domain/window/usage.ts"
import type { BranchEntry } from "../src/domain/entries.ts"
import { resolvePolicy } from "../src/domain/thresholds.ts"
import { layerWithoutDependencies as budgetLayer } from "../src/layers/BudgetLive.ts"
import { layerInjected } from "../src/layers/ThresholdsLive.ts"
import * as WindowLive from "../src/layers/WindowLive.ts"
import { Budget } from "../src/services/Budget.ts"
import { PiSession } from "../src/services/PiSession.ts"

const ENTRIES = 50_000
const MARKER_EVERY = 4_000
const ITERATIONS = 3_000
const WARMUP = 500

/** A classified branch: messages, a reminder pair in every closed window, a marker every MARKER_EVERY entries. */
const syntheticBranch = (markerEvery: number | undefined): ReadonlyArray<BranchEntry> => {
  const branch: Array<BranchEntry> = []
  let window = "root"
  for (let i = 0; i < ENTRIES; i++) {
    const id = `e${i}`
    if (markerEvery !== undefined && i > 0 && i % markerEvery === 0) {
      window = `w${i / markerEvery}`
      branch.push({ _tag: "Marker", id, timestamp: "t", windowId: window })
    } else if (markerEvery !== undefined && i % markerEvery === markerEvery - 3) {
      branch.push({ _tag: "Reminder", id, timestamp: "t", kind: "guidance", windowId: window })
    } else if (markerEvery !== undefined && i % markerEvery === markerEvery - 2) {
      branch.push({ _tag: "Reminder", id, timestamp: "t", kind: "warning", windowId: window })
    } else {
      branch.push({ _tag: "Message", id, timestamp: "t", role: i % 2 === 0 ? "user" : "assistant" })
    }
  }
  return branch
}

const currentWindow = (branch: ReadonlyArray<BranchEntry>): string => {
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry._tag === "Marker") return entry.windowId
  }
  return "root"
}

const median = (samples: Array<number>): number => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const measure = (run: () => unknown): number => {
  for (let i = 0; i < WARMUP; i++) run()
  const samples: Array<number> = []
  for (let i = 0; i < ITERATIONS; i++) {
    const start = performance.now()
    run()
    samples.push(performance.now() - start)
  }
  return median(samples)
}

// Above the guidance line with nothing committed in the window: the scan walks the whole current window.
const usage: WindowUsage = { tokens: 120_000, contextWindow: 200_000 }
const model = { provider: "anthropic", id: "claude-sonnet-4", contextWindow: 200_000 }

const session = Layer.mock(PiSession)({
  sessionId: "bench",
  cwd: "/bench",
  agentDir: "/bench/agent",
  model: Effect.succeed(Option.some(model)),
  settings: Effect.succeed({ compaction: { reserveTokens: 16384 } }),
  notify: () => Effect.void,
  interruptOnAbort: (effect) => effect
})
const runtime = ManagedRuntime.make(Layer.mergeAll(budgetLayer.pipe(Layer.provide(Layer.merge(layerInjected({}), WindowLive.layer))), session))

const serviceCost = (branch: ReadonlyArray<BranchEntry>): number => {
  const windowId = currentWindow(branch)
  const observe = Effect.gen(function*() {
    const budget = yield* Budget
    return yield* budget.observeRequest({ windowId, usage, branch })
  })
  return measure(() => runtime.runSync(observe))
}

const pureCost = (branch: ReadonlyArray<BranchEntry>): number => {
  const windowId = currentWindow(branch)
  return measure(() => {
    const policy = resolvePolicy([{ source: "global", settings: { compaction: { reserveTokens: 16384 } } }], model)
    return decide({
      usage,
      lines: policy.lines,
      automaticReset: policy.automaticReset.value,
      committed: committedReminders(branch, windowId),
      staged: { guidance: false, warning: false }
    })
  })
}

const marked = syntheticBranch(MARKER_EVERY)
const unmarked = syntheticBranch(undefined)
const decision = serviceCost(marked)
const pure = pureCost(marked)
const unmarkedDecision = serviceCost(unmarked)
await runtime.dispose()

const round = (ms: number) => Math.round(ms * 10_000) / 10_000
console.log(`budget decision on ${ENTRIES.toLocaleString("en-US")} entries (marker every ${MARKER_EVERY}), median of ${ITERATIONS}:`)
console.log(`  Budget.observeRequest (service, live policy): ${round(decision)} ms`)
console.log(`  pure decision (resolvePolicy + scan + decide): ${round(pure)} ms`)
console.log(`  Budget.observeRequest with no marker at all (one 50k-entry window): ${round(unmarkedDecision)} ms`)
console.log(`  target: < 1 ms -> ${decision < 1 ? "met" : "MISSED"}`)

const out = join(dirname(fileURLToPath(import.meta.url)), "results", "budget.json")
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, `${JSON.stringify({ decision_ms: round(decision) }, null, 2)}\n`)
