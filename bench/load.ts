/**
 * Extension load cost: what a Pi user waits for at start-up because pi-context is installed.
 * Times `resourceLoader.reload()` + `createAgentSession` + `session.bindExtensions(...)`, and then the
 * first prompt (faux model answering at once, from the end of bind), for three variants: Pi alone;
 * pi-context as installed (the repo root through `additionalExtensionPaths`, so Pi reads the package
 * manifest: src/extension.ts, which loads the prebuilt bundle in dist/); and pi-context's TypeScript
 * source as the entry (src/main.ts, as before the bundle). Median of RUNS each, the order rotated
 * every round. Every child enables Node's compile cache first, as Pi's own CLI does.
 *
 * Then a few profiled runs of each pi-context variant (V8's sampling profiler over bind to the end of
 * the first prompt; bench/support/profileSplit.ts) print where that time goes: TypeScript loading,
 * module resolve/compile/link, Effect's and pi-context's module evaluation, the Effect runtime, and
 * the start-up work by room (settings, root boot, notes snapshot, git, tool collisions).
 * Writes bench/results/load.json: `load_added_ms`, `load_ratio`, `first_prompt_added_ms` (as
 * installed) and `first_prompt_added_source_ms`. Never asserts on time.
 *
 *   npm exec -- node bench/load.ts            (or `main()` from bench/run.ts)
 *   LOAD_RUNS=30 LOAD_PROFILE_RUNS=5 npm exec -- node bench/load.ts
 *   LOAD_PROFILE_DIR=/tmp/profiles npm exec -- node bench/load.ts   (also keeps each profiled run's .cpuprofile, to read by function)
 *
 * Every measurement runs in a fresh child process. Repeated loads in one process do re-import
 * src/main.ts (Pi's loader uses jiti with `moduleCache: false`, and a new cwd per run clears its
 * factory cache: each load produced distinct tool-schema objects), but they run on a warm V8 and
 * with Pi's own lazy imports already done, which hides most of the cost a user pays at start, and the
 * Effect runtime loading in the background after `session_start` would spill into the next run.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { enableCompileCache } from "node:module"
import { fileURLToPath } from "node:url"
import { idleBucket, splitProfile, startProfiling } from "./support/profileSplit.ts"
import { median } from "./support/stats.ts"

const thisFile = fileURLToPath(import.meta.url)
const repoRoot = resolve(dirname(thisFile), "..")
const resultsFile = join(repoRoot, "bench", "results", "load.json")
/** One cache for every run, as a user's Pi keeps one (warmed by the discarded first round). */
const compileCacheDir = join(tmpdir(), "pi-context-bench-compile-cache")
const runs = Math.max(15, Number(process.env.LOAD_RUNS ?? 15))
/** Profiled runs of each pi-context variant, for the split (the profiler slows them, so they are not in the medians). */
const profileRuns = Math.max(1, Number(process.env.LOAD_PROFILE_RUNS ?? 3))

/** without pi-context; with it as installed (the package manifest's entry); with its TypeScript source as the entry */
type Variant = "with" | "without" | "source"
const variants: ReadonlyArray<Variant> = ["with", "without", "source"]

interface Sample {
  /** reload + createAgentSession + bindExtensions */
  readonly startMs: number
  /** how late a 0 ms timer set right after bind fires: work started at start-up that still holds the event loop */
  readonly blockedMs: number
  /** first prompt, faux model answering at once, from the end of bind */
  readonly firstPromptMs: number
  /** --profile only: CPU time from the end of bind to the end of the first prompt, by bucket */
  readonly split?: Readonly<Record<string, number>>
}

/** One measurement, in this (child) process: Pi's imports and model set-up are not timed. */
const measureOnce = async (variant: Variant, profile: boolean): Promise<Sample> => {
  const root = mkdtempSync(join(tmpdir(), "pi-context-load-"))
  const agentDir = join(root, "agent")
  const cwd = join(root, "project")
  for (const dir of [agentDir, cwd, join(root, "notes")]) mkdirSync(dir, { recursive: true })
  process.env.HOME = root
  process.env.PI_CODING_AGENT_DIR = agentDir
  process.env.PI_CONTEXT_NOTES_ROOT = join(root, "notes")
  process.env.PI_OFFLINE = "1"
  // As Pi's own CLI does first thing (its bin, dist/bundle/cli.js): modules Node loads keep their compiled code on disk.
  enableCompileCache(compileCacheDir)

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
    additionalExtensionPaths: variant === "with" ? [repoRoot] : variant === "source" ? [join(repoRoot, "src", "main.ts")] : [],
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
  const stopProfiling = profile ? await startProfiling() : undefined
  const t1 = performance.now()
  if (variant !== "without" && !session.getAllTools().some((tool) => tool.name === "notes_write")) {
    throw new Error("pi-context did not load")
  }
  await new Promise((resolveTimer) => setTimeout(resolveTimer, 0))
  const blockedMs = performance.now() - t1
  await session.prompt("hi")
  await session.waitForIdle()
  const t2 = performance.now()
  const cpuProfile = stopProfiling === undefined ? undefined : await stopProfiling()
  if (cpuProfile !== undefined && process.env.LOAD_PROFILE_DIR !== undefined) {
    // For reading by function (Chrome DevTools, speedscope): bind to the end of the first prompt.
    writeFileSync(join(process.env.LOAD_PROFILE_DIR, `${variant}-${process.pid}.cpuprofile`), JSON.stringify(cpuProfile))
  }
  const split = cpuProfile === undefined ? undefined : Object.fromEntries(splitProfile(cpuProfile, `${repoRoot}/`))
  rmSync(root, { recursive: true, force: true })
  return { startMs: t1 - t0, blockedMs, firstPromptMs: t2 - t1, ...(split === undefined ? {} : { split }) }
}

const runChild = (variant: Variant, profile = false): Promise<Sample> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, thisFile, "--child", variant, ...(profile ? ["--profile"] : [])], {
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


const round = (value: number, digits = 1): number => Number(value.toFixed(digits))

export interface LoadResult {
  readonly load_added_ms: number
  readonly load_ratio: number
  readonly first_prompt_added_ms: number
  readonly first_prompt_added_source_ms: number
}

const loadAverage = (): string => loadavg().map((value) => value.toFixed(2)).join(" ")

/** The median of each bucket over the profiled runs, largest first. */
const medianSplit = (samples: ReadonlyArray<Sample>): Array<readonly [string, number]> => {
  const buckets = new Set(samples.flatMap((sample) => Object.keys(sample.split ?? {})))
  return [...buckets]
    .map((bucket) => [bucket, median(samples.map((sample) => sample.split?.[bucket] ?? 0))] as const)
    .sort((a, b) => b[1] - a[1])
}

const printSplit = (label: string, samples: ReadonlyArray<Sample>): void => {
  const split = medianSplit(samples)
  const busy = split.filter(([bucket]) => bucket !== idleBucket)
  const total = busy.reduce((sum, [, ms]) => sum + ms, 0)
  console.log(`  where the time from bind to the end of the first prompt goes, ${label}, profiled (median of ${samples.length}, profiler overhead included):`)
  for (const [bucket, ms] of busy) if (ms >= 0.5) console.log(`    ${ms.toFixed(1).padStart(7)} ms  ${bucket}`)
  console.log(`    ${total.toFixed(1).padStart(7)} ms  CPU busy in all`)
  console.log(`    ${(split.find(([bucket]) => bucket === idleBucket)?.[1] ?? 0).toFixed(1).padStart(7)} ms  ${idleBucket}`)
}

export const main = async (): Promise<LoadResult> => {
  const samples: Record<Variant, Array<Sample>> = { with: [], without: [], source: [] }
  // "As installed" must mean the bundle of this source: a stale one would make Pi load the source instead.
  execFileSync(process.execPath, [join(repoRoot, "scripts", "build.mjs")], { stdio: "inherit" })
  const loadBefore = loadAverage()
  // One discarded round: the first load after an install transpiles src/ into jiti's disk cache.
  for (const variant of variants) await runChild(variant)
  for (let i = 0; i < runs; i++) {
    // Each round in a different order, so no variant always runs first.
    const order = variants.map((_, k) => variants[(i + k) % variants.length]!)
    for (const variant of order) samples[variant].push(await runChild(variant))
  }
  const profiled: Record<"with" | "source", Array<Sample>> = { with: [], source: [] }
  for (let i = 0; i < profileRuns; i++) {
    profiled.with.push(await runChild("with", true))
    profiled.source.push(await runChild("source", true))
  }
  const loadAfter = loadAverage()
  const of = (pick: (sample: Sample) => number) =>
    Object.fromEntries(variants.map((variant) => [variant, median(samples[variant].map(pick))])) as Record<Variant, number>
  const start = of((s) => s.startMs)
  const blocked = of((s) => s.blockedMs)
  const prompt = of((s) => s.firstPromptMs)
  const result: LoadResult = {
    load_added_ms: round(start.with - start.without),
    load_ratio: round(start.with / start.without, 3),
    first_prompt_added_ms: round(prompt.with - prompt.without),
    first_prompt_added_source_ms: round(prompt.source - prompt.without)
  }

  const rows = (figures: Record<Variant, number>, added: boolean): void => {
    console.log(`    without pi-context         ${figures.without.toFixed(1)} ms`)
    console.log(`    with pi-context            ${figures.with.toFixed(1)} ms${added ? `  (added ${(figures.with - figures.without).toFixed(1)} ms)` : ""}`)
    console.log(`    with its source as entry   ${figures.source.toFixed(1)} ms${added ? `  (added ${(figures.source - figures.without).toFixed(1)} ms)` : ""}`)
  }
  console.log(`pi-context load cost (${runs} runs each, order rotated, fresh process per run, Node ${process.versions.node})`)
  console.log(`  load average (1, 5, 15 min) before: ${loadBefore}, after: ${loadAfter}`)
  console.log("  reload + createAgentSession + bindExtensions (median):")
  rows(start, true)
  console.log("  event loop still busy after bind, 0 ms timer delay (median):")
  rows(blocked, false)
  console.log("  first prompt after start, faux model answering at once, from the end of bind (median):")
  rows(prompt, true)
  printSplit("as installed", profiled.with)
  printSplit("source as entry", profiled.source)
  mkdirSync(dirname(resultsFile), { recursive: true })
  writeFileSync(resultsFile, `${JSON.stringify(result)}\n`)
  console.log(`  wrote ${resultsFile}`)
  return result
}

const childIndex = process.argv.indexOf("--child")
if (childIndex !== -1) {
  const variant = variants.find((name) => name === process.argv[childIndex + 1]) ?? "without"
  const sample = await measureOnce(variant, process.argv.includes("--profile"))
  process.stdout.write(`${JSON.stringify(sample)}\n`)
  process.exit(0)
} else if (process.argv[1] !== undefined && resolve(process.argv[1]) === thisFile) {
  await main()
}
