/**
 * Memory pi-context adds to a Pi session, and whether it grows.
 *
 * Each measurement is a fresh child process (run with --expose-gc) holding
 * Pi's real session (the SDK harness, faux model) on a 100,000-entry session
 * with 20 windows (bench/support/syntheticSession.ts). It runs the history
 * tools, the notes tools and 20 resets (a note and `wipe_memory`, then the
 * continuation), then takes the heap and RSS after a full GC; then 1,000
 * further one-reply prompts and the same again. Pi alone runs the same
 * prompts (its calls to pi-context's tools fail as unknown tools), in the
 * same order, alternating which goes first.
 *
 * Added heap = with − without after the workload; growth over 1,000 prompts
 * = (with's growth) − (without's growth), since Pi's own session grows by
 * its new entries in both. Writes bench/results/memory.json. Never asserts.
 *
 *   npm exec -- node --expose-gc bench/memory.ts     (the children get --expose-gc themselves)
 *   MEMORY_PROMPTS=200 MEMORY_PAIRS=1 npm exec -- node bench/memory.ts   (a quicker, smaller run)
 */
import { spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import type { JsonObject } from "@earendil-works/pi-ai"
import type { FauxResponseStep } from "@earendil-works/pi-ai/compat"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { CustomType } from "../src/kernel/protocol.ts"
import { createHarness } from "../test/support/sdkHarness.ts"
import { syntheticSession } from "./support/syntheticSession.ts"
import { median } from "./support/stats.ts"

const thisFile = fileURLToPath(import.meta.url)
const repoRoot = resolve(dirname(thisFile), "..")
const resultsFile = join(repoRoot, "bench", "results", "memory.json")
const ENTRIES = 100_000
const RESETS = 20
const PROMPTS = Math.max(1, Number(process.env.MEMORY_PROMPTS ?? 1_000))
const PAIRS = Math.max(1, Number(process.env.MEMORY_PAIRS ?? 2))
const HEAP_BAR_MB = 50
const GROWTH_BAR_MB = 5

type Variant = "with" | "without"

interface Sample {
  readonly heapMb: number
  readonly rssMb: number
  readonly heapAfterPromptsMb: number
  readonly rssAfterPromptsMb: number
  readonly markers: number
}

const mb = (bytes: number): number => bytes / 1024 / 1024

const settle = async (): Promise<{ readonly heap: number; readonly rss: number }> => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run with --expose-gc")
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolveTimer) => setTimeout(resolveTimer, 20))
  }
  const usage = process.memoryUsage()
  return { heap: usage.heapUsed, rss: usage.rss }
}

const calls = (...tools: ReadonlyArray<readonly [string, JsonObject]>) =>
  fauxAssistantMessage(tools.map(([name, args]) => fauxToolCall(name, args)), { stopReason: "toolUse" })

const measureOnce = async (variant: Variant): Promise<Sample> => {
  const withPackage = variant === "with"
  const h = await createHarness({
    loadPackage: withPackage,
    contextWindow: 10_000_000,
    sessionManager: (cwd) => SessionManager.inMemory(cwd, undefined, syntheticSession(cwd, withPackage, ENTRIES))
  })
  // Each prompt gets exactly its own replies, so a refused call can never shift the script.
  const prompt = async (text: string, steps: ReadonlyArray<FauxResponseStep>): Promise<void> => {
    h.faux.setResponses([...steps, ...Array.from({ length: 4 }, () => fauxAssistantMessage("done"))])
    await h.prompt(text)
  }
  await prompt("warm up", [fauxAssistantMessage("ready")])
  await prompt("look back", [
    calls(["history_windows", {}], ["history_list", { window: "w3" }], ["history_search", { query: "parser" }], ["history_read", { seq: 40 }]),
    fauxAssistantMessage("seen")
  ])
  await prompt("take notes", [
    calls(["notes_write", { address: "plan", content: "# Plan\nparser first, then the cache" }], ["notes_write", { address: "@project/facts", content: "# Facts\nthe router is in src/router" }]),
    calls(["notes_list", {}], ["notes_search", { query: "router" }], ["notes_read", { address: "plan" }]),
    fauxAssistantMessage("noted")
  ])
  for (let reset = 0; reset < RESETS; reset++) {
    await prompt(`step ${reset}`, [
      calls(["notes_write", { address: "checkpoint", content: `# Checkpoint\ngoal: the task; next: step ${reset + 1}` }], ["wipe_memory", {}]),
      fauxAssistantMessage(`resumed at step ${reset + 1}`)
    ])
  }
  const markers = h.entries().filter((entry) => entry.type === "custom" && entry.customType === CustomType.resetMarker).length
  const before = await settle()
  for (let i = 0; i < PROMPTS; i++) await prompt(`prompt ${i}`, [fauxAssistantMessage(`reply ${i}`)])
  const after = await settle()
  await h.dispose()
  return { heapMb: mb(before.heap), rssMb: mb(before.rss), heapAfterPromptsMb: mb(after.heap), rssAfterPromptsMb: mb(after.rss), markers }
}

const runChild = (variant: Variant): Promise<Sample> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, "--expose-gc", thisFile, "--child", variant], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => {
      const line = stdout.split("\n").find((text) => text.startsWith("{\"heapMb\""))
      if (code !== 0 || line === undefined) reject(new Error(`memory child (${variant}) exited ${code}:\n${stderr}${stdout}`))
      else resolvePromise(JSON.parse(line) as Sample)
    })
  })


const round = (value: number): number => Number(value.toFixed(2))

export const main = async () => {
  const loadBefore = loadavg().map((value) => value.toFixed(2)).join(" ")
  const samples: Record<Variant, Array<Sample>> = { with: [], without: [] }
  for (let i = 0; i < PAIRS; i++) {
    const order: ReadonlyArray<Variant> = i % 2 === 0 ? ["with", "without"] : ["without", "with"]
    for (const variant of order) samples[variant].push(await runChild(variant))
  }
  const loadAfter = loadavg().map((value) => value.toFixed(2)).join(" ")
  const of = (variant: Variant, pick: (sample: Sample) => number) => median(samples[variant].map(pick))
  const growth = (variant: Variant) => of(variant, (s) => s.heapAfterPromptsMb - s.heapMb)
  const result = {
    heap_added_mb: round(of("with", (s) => s.heapMb) - of("without", (s) => s.heapMb)),
    rss_added_mb: round(of("with", (s) => s.rssMb) - of("without", (s) => s.rssMb)),
    growth_1000_prompts_mb: round(growth("with") - growth("without")),
    prompts: PROMPTS
  }
  const markers = samples.with.map((s) => s.markers)
  console.log(`pi-context memory on a ${ENTRIES.toLocaleString("en-US")}-entry session (${PAIRS} pair(s), alternating, fresh process each, Node ${process.versions.node})`)
  console.log(`  load average (1, 5, 15 min) before: ${loadBefore}, after: ${loadAfter}`)
  console.log(`  after the history tools, the notes tools and ${RESETS} resets (reset markers written: ${markers.join(", ")}), after GC (median):`)
  console.log(`    heap  without ${of("without", (s) => s.heapMb).toFixed(1)} MB, with ${of("with", (s) => s.heapMb).toFixed(1)} MB: added ${result.heap_added_mb} MB (bar < ${HEAP_BAR_MB} MB)`)
  console.log(`    RSS   without ${of("without", (s) => s.rssMb).toFixed(1)} MB, with ${of("with", (s) => s.rssMb).toFixed(1)} MB: added ${result.rss_added_mb} MB`)
  console.log(`  heap growth over ${PROMPTS} further prompts: without ${growth("without").toFixed(2)} MB, with ${growth("with").toFixed(2)} MB:`)
  console.log(`    pi-context's share ${result.growth_1000_prompts_mb} MB (bar < ${GROWTH_BAR_MB} MB${PROMPTS === 1_000 ? "" : `; measured over ${PROMPTS}, not 1,000`})`)
  mkdirSync(dirname(resultsFile), { recursive: true })
  writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`)
  console.log(`  wrote ${resultsFile}`)
  return result
}

const childIndex = process.argv.indexOf("--child")
if (childIndex !== -1) {
  const sample = await measureOnce(process.argv[childIndex + 1] === "with" ? "with" : "without")
  process.stdout.write(`${JSON.stringify(sample)}\n`)
  process.exit(0)
} else if (process.argv[1] !== undefined && resolve(process.argv[1]) === thisFile) {
  await main()
}
