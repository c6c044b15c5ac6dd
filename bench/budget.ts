/**
 * Per-turn cost of the budget decision on a 50,000-entry session.
 * Runs `Budget.observeRequest` through the real service (injected policy,
 * resolved live on every call, the Window room it reads, a fake Pi session)
 * on a branch with a reset marker every 4,000 entries. Writes bench/results/budget.json.
 *
 *   npm exec -- node bench/budget.ts
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer, Option } from "effect"
import { committedReminders, decide } from "../src/budget/reminders.ts"
import { type BranchEntry, classifyEntry } from "../src/kernel/entries.ts"
import { CustomType } from "../src/kernel/protocol.ts"
import { resolvePolicy } from "../src/settings/policy.ts"
import { layerWithoutDependencies as budgetLayer } from "../src/budget/BudgetLive.ts"
import { layerInjected } from "../src/settings/ThresholdsLive.ts"
import * as WindowLive from "../src/window/WindowLive.ts"
import { Budget } from "../src/budget/Budget.ts"
import { PiSession } from "../src/kernel/PiSession.ts"
import { type EntryFields, fakeEntry, messageEntry } from "../test/support/FakePiSession.ts"
import { median } from "./support/stats.ts"
import type { WindowUsage } from "../src/kernel/facts.ts"

const ENTRIES = 50_000
const MARKER_EVERY = 4_000
const ITERATIONS = 3_000
const WARMUP = 500

/** A session's entries: messages, a reminder pair in every closed window, a marker every `markerEvery` entries. */
const syntheticEntries = (markerEvery: number | undefined): ReadonlyArray<EntryFields> => {
  const entries: Array<EntryFields> = []
  let window = "root"
  for (let i = 0; i < ENTRIES; i++) {
    if (markerEvery !== undefined && i > 0 && i % markerEvery === 0) {
      window = `pcx:bench:${(i / markerEvery).toString(16).padStart(8, "0")}`
      entries.push({ type: "custom", customType: CustomType.resetMarker, data: { windowId: window } })
    } else if (markerEvery !== undefined && (i % markerEvery === markerEvery - 3 || i % markerEvery === markerEvery - 2)) {
      const customType = i % markerEvery === markerEvery - 3 ? CustomType.guidance : CustomType.warning
      entries.push({ type: "custom_message", customType, content: "reminder", display: false, details: { windowId: window } })
    } else {
      entries.push(messageEntry(i % 2 === 0 ? "user" : "assistant", `message ${i}`))
    }
  }
  return entries
}

const currentWindow = (branch: ReadonlyArray<BranchEntry>): string => {
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry._tag === "Marker") return entry.windowId
  }
  return "root"
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

// The provider request being built: its last reply reported the usage above, so the measure is exact.
const request = [{ role: "assistant", usage: { totalTokens: usage.tokens! } }]

const serviceCost = (entries: ReadonlyArray<EntryFields>) =>
  Effect.gen(function*() {
    const raw = entries.map((fields, i) => fakeEntry({ ...fields, id: `e${i}` }, i === 0 ? null : `e${i - 1}`))
    // Pi's session walks back from the leaf only as far as asked (the fake test session rebuilds the whole path).
    const session = Layer.mock(PiSession)({
      sessionId: "bench",
      cwd: "/bench",
      agentDir: "/bench/agent",
      model: Effect.succeed(Option.some(model)),
      settings: Effect.succeed({ compaction: { reserveTokens: 16384 } }),
      notify: () => Effect.void,
      interruptOnAbort: (effect) => effect,
      entries: Effect.succeed(raw),
      leafId: Effect.succeed(raw[raw.length - 1]?.id ?? null),
      rawBranch: Effect.succeed(raw),
      branchTail: (isStart) =>
        Effect.sync(() => {
          for (let i = raw.length - 1; i >= 0; i--) if (isStart(raw[i]!)) return raw.slice(i)
          return raw
        })
    })
    const budget = yield* Budget
    const observe = Effect.provide(budget.observeRequest(request), session)
    return measure(() => Effect.runSync(observe))
  }).pipe(Effect.provide(budgetLayer.pipe(Layer.provide(Layer.merge(layerInjected({}), WindowLive.layer)))), Effect.runSync)

const pureCost = (entries: ReadonlyArray<EntryFields>): number => {
  const branch = entries.map((fields) => classifyEntry(fakeEntry(fields)))
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

const marked = syntheticEntries(MARKER_EVERY)
const unmarked = syntheticEntries(undefined)
const decision = serviceCost(marked)
const pure = pureCost(marked)
const unmarkedDecision = serviceCost(unmarked)

const round = (ms: number) => Math.round(ms * 10_000) / 10_000
console.log(`budget decision on ${ENTRIES.toLocaleString("en-US")} entries (marker every ${MARKER_EVERY}), median of ${ITERATIONS}:`)
console.log(`  Budget.observeRequest (service, live policy): ${round(decision)} ms`)
console.log(`  pure decision (resolvePolicy + scan + decide): ${round(pure)} ms`)
console.log(`  Budget.observeRequest with no marker at all (one 50k-entry window): ${round(unmarkedDecision)} ms`)
console.log(`  target: < 1 ms -> ${decision < 1 ? "met" : "MISSED"}`)

const out = join(dirname(fileURLToPath(import.meta.url)), "results", "budget.json")
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, `${JSON.stringify({ decision_ms: round(decision) }, null, 2)}\n`)
