/**
 * Extension load cost: what a Pi user waits for at start-up because pi-context is installed.
 * Times `resourceLoader.reload()` + `createAgentSession` + `session.bindExtensions(...)` with and
 * without this package (loaded from the repo root through `additionalExtensionPaths`, exactly as an
 * installed package), median of RUNS each, alternating which goes first. Writes bench/results/load.json.
 * Printed only: how long the event loop stays busy after bind, and the first prompt. pi-context's
 * `session_start` starts importing its Effect runtime without awaiting it, but that work still runs on
 * Pi's one thread right after bind, and the `input` hook of the first prompt waits for it.
 *
 *   npm exec -- node bench/load.ts            (or `main()` from bench/run.ts)
 *   LOAD_RUNS=30 npm exec -- node bench/load.ts
 *
 * Every measurement runs in a fresh child process. Repeated loads in one process do re-import
 * src/main.ts (Pi's loader uses jiti with `moduleCache: false`, and a new cwd per run clears its
 * factory cache: each load produced distinct tool-schema objects), but they run on a warm V8 and
 * with Pi's own lazy imports already done, which hides most of the cost a user pays at start, and the
 * Effect runtime loading in the background after `session_start` would spill into the next run.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const thisFile = fileURLToPath(import.meta.url)
const repoRoot = resolve(dirname(thisFile), "..")
const resultsFile = join(repoRoot, "bench", "results", "load.json")
const runs = Math.max(15, Number(process.env.LOAD_RUNS ?? 15))

type Variant = "with" | "without"

interface Sample {
  /** reload + createAgentSession + bindExtensions */
  readonly startMs: number
  /** how late a 0 ms timer set right after bind fires: work started at start-up that still holds the event loop */
  readonly blockedMs: number
  /** first prompt, faux model answering at once, from the end of bind */
  readonly firstPromptMs: number
}

/** One measurement, in this (child) process: Pi's imports and model set-up are not timed. */
const measureOnce = async (variant: Variant): Promise<Sample> => {
  const root = mkdtempSync(join(tmpdir(), "pi-context-load-"))
  const agentDir = join(root, "agent")
  const cwd = join(root, "project")
  for (const dir of [agentDir, cwd, join(root, "notes")]) mkdirSync(dir, { recursive: true })
  process.env.HOME = root
  process.env.PI_CODING_AGENT_DIR = agentDir
  process.env.PI_CONTEXT_NOTES_ROOT = join(root, "notes")
  process.env.PI_OFFLINE = "1"

  const { InMemoryCredentialStore } = await import("@earendil-works/pi-ai")
  const { registerFauxModel } = await import("../test/support/fauxModel.ts")
  const { fauxAssistantMessage, registerFauxProvider } = await import("@earendil-works/pi-ai/compat")
  const { createAgentSession, DefaultResourceLoader, ModelRuntime, SessionManager, SettingsManager } = await import(
    "@earendil-works/pi-coding-agent"
  )
  const faux = registerFauxProvider({ provider: "faux", models: [{ id: "faux-1", contextWindow: 200_000, maxTokens: 4_000 }] })
  faux.setResponses([fauxAssistantMessage("ok")])
  const credentials = new InMemoryCredentialStore()
  await credentials.modify("faux", async () => ({ type: "api_key", key: "faux-key" }))
  const modelRuntime = await ModelRuntime.create({ credentials, modelsPath: join(agentDir, "models.json"), allowModelNetwork: false })
  const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } })

  const t0 = performance.now()
  const resourceLoader = new DefaultResourceLoader({
    cwd,
    agentDir,
    settingsManager,
    noExtensions: true,
    additionalExtensionPaths: variant === "with" ? [repoRoot] : [],
    extensionFactories: [(pi) => registerFauxModel(pi, faux)],
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true
  })
  await resourceLoader.reload()
  const errors = resourceLoader.getExtensions().errors
  if (errors.length > 0) throw new Error(`extension load failed: ${JSON.stringify(errors)}`)
  const { session } = await createAgentSession({
    cwd,
    agentDir,
    modelRuntime,
    model: faux.getModel(),
    thinkingLevel: "off",
    resourceLoader,
    sessionManager: SessionManager.inMemory(cwd),
    settingsManager
  })
  await session.bindExtensions({ mode: "print" })
  const t1 = performance.now()
  if (variant === "with" && !session.getAllTools().some((tool) => tool.name === "notes_write")) {
    throw new Error("pi-context did not load")
  }
  await new Promise((resolveTimer) => setTimeout(resolveTimer, 0))
  const blockedMs = performance.now() - t1
  await session.prompt("hi")
  await session.waitForIdle()
  const t2 = performance.now()
  rmSync(root, { recursive: true, force: true })
  return { startMs: t1 - t0, blockedMs, firstPromptMs: t2 - t1 }
}

const runChild = (variant: Variant): Promise<Sample> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, thisFile, "--child", variant], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      const line = stdout.split("\n").find((text) => text.startsWith("{\"startMs\""))
      if (code !== 0 || line === undefined) reject(new Error(`load child (${variant}) exited ${code}:\n${stderr}${stdout}`))
      else resolvePromise(JSON.parse(line) as Sample)
    })
  })

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits))

export interface LoadResult {
  readonly load_added_ms: number
  readonly load_ratio: number
}

export const main = async (): Promise<LoadResult> => {
  const samples: Record<Variant, Array<Sample>> = { with: [], without: [] }
  // One discarded pair: the first load after an install transpiles src/ into jiti's disk cache.
  await runChild("with")
  await runChild("without")
  for (let i = 0; i < runs; i++) {
    const order: ReadonlyArray<Variant> = i % 2 === 0 ? ["with", "without"] : ["without", "with"]
    for (const variant of order) samples[variant].push(await runChild(variant))
  }
  const start = { with: median(samples.with.map((s) => s.startMs)), without: median(samples.without.map((s) => s.startMs)) }
  const blocked = {
    with: median(samples.with.map((s) => s.blockedMs)),
    without: median(samples.without.map((s) => s.blockedMs))
  }
  const prompt = {
    with: median(samples.with.map((s) => s.firstPromptMs)),
    without: median(samples.without.map((s) => s.firstPromptMs))
  }
  const result: LoadResult = { load_added_ms: round(start.with - start.without), load_ratio: round(start.with / start.without, 3) }

  console.log(`pi-context load cost (${runs} runs each, alternating, fresh process per run, Node ${process.versions.node})`)
  console.log("  reload + createAgentSession + bindExtensions (median):")
  console.log(`    without pi-context  ${start.without.toFixed(1)} ms`)
  console.log(`    with pi-context     ${start.with.toFixed(1)} ms`)
  console.log(`    added               ${result.load_added_ms} ms  (ratio ${result.load_ratio})`)
  console.log("  event loop still busy after bind, 0 ms timer delay (median, not in load.json):")
  console.log(`    without pi-context  ${blocked.without.toFixed(1)} ms`)
  console.log(`    with pi-context     ${blocked.with.toFixed(1)} ms`)
  console.log("  first prompt after start, faux model answering at once (median, not in load.json):")
  console.log(`    without pi-context  ${prompt.without.toFixed(1)} ms`)
  console.log(`    with pi-context     ${prompt.with.toFixed(1)} ms`)
  console.log(`    added               ${(prompt.with - prompt.without).toFixed(1)} ms`)
  mkdirSync(dirname(resultsFile), { recursive: true })
  writeFileSync(resultsFile, `${JSON.stringify(result)}\n`)
  console.log(`  wrote ${resultsFile}`)
  return result
}

const childIndex = process.argv.indexOf("--child")
if (childIndex !== -1) {
  const variant = process.argv[childIndex + 1] === "with" ? "with" : "without"
  const sample = await measureOnce(variant)
  process.stdout.write(`${JSON.stringify(sample)}\n`)
  process.exit(0)
} else if (process.argv[1] !== undefined && resolve(process.argv[1]) === thisFile) {
  await main()
}
