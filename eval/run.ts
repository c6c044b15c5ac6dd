/**
 * `npm run eval`: every task × arm × seed as one Pi session, then
 * results.jsonl, report.md and chart.svg in --out. `--report DIR` rebuilds
 * the report and chart from DIR/results.jsonl.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { InMemoryCredentialStore } from "@earendil-works/pi-ai"
import { getAgentDir, ModelRuntime } from "@earendil-works/pi-coding-agent"
import { type EvalOptions, parseArgs } from "./harness/args.ts"
import { renderChart } from "./harness/chart.ts"
import { runPool } from "./harness/pool.ts"
import { type PriceReference, renderReport } from "./harness/report.ts"
import { writeReadmeFigures } from "./harness/readme.ts"
import { repoRoot } from "./harness/session.ts"
import { nearlyFullShare } from "./harness/settings.ts"
import { sweepTable } from "./harness/sweep.ts"
import type { JobSpec, RunResult } from "./harness/types.ts"
import { tasks } from "./tasks/index.ts"

export const jobsFor = (options: EvalOptions, invokedFrom: string): ReadonlyArray<JobSpec> => {
  const names = options.tasks === "all" ? tasks.map((task) => task.name) : options.tasks
  for (const name of names) if (!tasks.some((task) => task.name === name)) throw new Error(`no task named ${name} (tasks: ${tasks.map((task) => task.name).join(", ")})`)
  const out = resolve(invokedFrom, options.out)
  const scripted = options.model === "scripted"
  return names.flatMap((task) =>
    Array.from({ length: options.seeds }, (_, seed) => seed + 1).flatMap((seed) =>
      options.arms.map((arm): JobSpec => ({
        task,
        arm,
        seed,
        model: options.model,
        window: options.window,
        runDir: join(out, "sessions", `${task}-${arm.replace(/[^\w.-]+/g, "_")}-${seed}`),
        userAgentDir: getAgentDir(),
        invokedFrom,
        callTimeoutMs: options.callTimeoutMs,
        runTimeoutMs: scripted ? 300_000 : 3 * 3_600_000,
        maxCalls: options.maxCalls,
        lines: options.lines,
        nearlyFull: nearlyFullShare,
        // Pi's own retry policy for a real provider; the scripted model never needs one.
        retry: scripted ? { maxRetries: 0, baseDelayMs: 100 } : { maxRetries: 3, baseDelayMs: 2_000 }
      }))
    )
  )
}

/** The model scripted runs' tokens are priced at in the report. */
export const priceReferenceModel = ["anthropic", "claude-sonnet-4-6"] as const

const priceReference = async (): Promise<PriceReference | undefined> => {
  const runtime = await ModelRuntime.create({ credentials: new InMemoryCredentialStore(), modelsPath: null, allowModelNetwork: false })
  const model = runtime.getModel(...priceReferenceModel)
  return model === undefined ? undefined : { name: `${model.provider}/${model.id}`, cost: model.cost }
}

/** The committed scripted run: its figures are the README's. */
export const committedScripted = join(repoRoot, "eval", "results", "scripted")

export const writeReport = async (dir: string, results: ReadonlyArray<RunResult>): Promise<void> => {
  writeFileSync(join(dir, "report.md"), renderReport(results, await priceReference()))
  writeFileSync(join(dir, "chart.svg"), await renderChart(results))
  if (resolve(dir) === committedScripted) writeReadmeFigures(join(repoRoot, "README.md"), results)
}

export const readResults = (dir: string): ReadonlyArray<RunResult> =>
  readFileSync(join(dir, "results.jsonl"), "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as RunResult)

const main = async () => {
  const options = parseArgs(process.argv.slice(2))
  const invokedFrom = process.env.INIT_CWD ?? process.cwd()
  if (options.sweep !== undefined) {
    const dir = resolve(invokedFrom, options.sweep)
    const settings = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "results.jsonl")))
      .map((entry) => ({ name: entry.name, results: readResults(join(dir, entry.name)) }))
      .sort((a, b) => a.name.localeCompare(b.name))
    writeFileSync(join(dir, "sweep.md"), sweepTable(settings))
    process.stderr.write(`wrote ${join(dir, "sweep.md")} from ${settings.length} settings\n`)
    return
  }
  if (options.report !== undefined) {
    const dir = resolve(invokedFrom, options.report)
    await writeReport(dir, readResults(dir))
    process.stderr.write(`rebuilt ${join(dir, "report.md")} and chart.svg${dir === committedScripted ? ", and the README's eval figures" : ""}\n`)
    return
  }
  const out = resolve(invokedFrom, options.out)
  mkdirSync(out, { recursive: true })
  rmSync(join(out, "results.jsonl"), { force: true })
  rmSync(join(out, "sessions"), { recursive: true, force: true })
  const specs = jobsFor(options, invokedFrom)
  process.stderr.write(`${specs.length} runs · model ${options.model} · arms ${options.arms.join(", ")} · window ${options.window} · ${options.jobs} at a time\n`)
  const results = await runPool(specs, {
    jobs: options.jobs,
    maxUsd: options.maxUsd,
    progress: process.stderr,
    // Session paths relative to the results, so a committed results.jsonl points into its own sessions/.
    onResult: (result) => appendFileSync(join(out, "results.jsonl"), `${JSON.stringify({ ...result, sessionFile: result.sessionFile === undefined ? undefined : relative(out, result.sessionFile) })}\n`)
  })
  await writeReport(out, results)
  process.stderr.write(`${results.filter((result) => result.success).length}/${results.length} runs succeeded · ${join(out, "report.md")}\n`)
}

if (import.meta.main) {
  await main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  })
}
