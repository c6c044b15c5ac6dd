/**
 * `npm run eval`: every task × arm × seed as one Pi session, then
 * results.jsonl, report.md and chart.svg in --out. `--report DIR` rebuilds
 * the report and chart from DIR/results.jsonl.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { InMemoryCredentialStore } from "@earendil-works/pi-ai"
import { getAgentDir, ModelRuntime } from "@earendil-works/pi-coding-agent"
import { type EvalOptions, HelpAsked, parseArgs } from "./harness/args.ts"
import { checkWritable, planOut, removeOwn, resumeFrom, runWrites, startOut } from "./harness/outDir.ts"
import { checkArms, checkModel, checkTasks, describeResume } from "./harness/preflight.ts"
import { renderChart } from "./harness/chart.ts"
import { runPool } from "./harness/pool.ts"
import { type PriceReference, renderReport } from "./harness/report.ts"
import { writeReadmeFigures } from "./harness/readme.ts"
import { repoRoot } from "./harness/session.ts"
import { type SweepSetting, sweepTable } from "./harness/sweep.ts"
import { isInfrastructureFailure, type JobSpec, type RunResult } from "./harness/types.ts"
import { printable } from "./tasks/folder.ts"

/** A run folder's name part: what a task or arm name may hold that a file name should not, replaced. */
const fileNamePart = (name: string) => name.replace(/[^\w.-]+/g, "_")

export const jobsFor = (options: EvalOptions, invokedFrom: string, out = resolve(invokedFrom, options.out)): ReadonlyArray<JobSpec> => {
  const tasksDir = options.tasksDir === undefined ? undefined : resolve(invokedFrom, options.tasksDir)
  const names = checkTasks(options, tasksDir)
  const scripted = options.model === "scripted"
  return names.flatMap((task) =>
    Array.from({ length: options.seeds }, (_, seed) => seed + 1).flatMap((seed) =>
      options.arms.map((arm): JobSpec => ({
        task,
        tasksDir,
        arm,
        seed,
        model: options.model,
        window: options.window,
        runDir: join(out, "sessions", `${fileNamePart(task)}-${fileNamePart(arm)}-${seed}`),
        userAgentDir: getAgentDir(),
        invokedFrom,
        callTimeoutMs: options.callTimeoutMs,
        summaryTimeoutMs: options.summaryTimeoutMs,
        runTimeoutMs: scripted ? 300_000 : 3 * 3_600_000,
        maxCalls: options.maxCalls,
        lines: options.lines,
        compaction: options.compaction,
        mask: options.mask,
        standIn: options.standIn,
        // Pi's own retry policy for a real provider; the scripted model never needs one.
        retry: scripted ? { maxRetries: 0, baseDelayMs: 100 } : { maxRetries: 3, baseDelayMs: 2_000 }
      }))
    )
  )
}

/** The model scripted runs' tokens are priced at in the report. */
export const priceReferenceModel = ["anthropic", "claude-sonnet-4-6"] as const

export const priceReference = async (): Promise<PriceReference | undefined> => {
  const runtime = await ModelRuntime.create({ credentials: new InMemoryCredentialStore(), modelsPath: null, allowModelNetwork: false })
  const model = runtime.getModel(...priceReferenceModel)
  return model === undefined ? undefined : { name: `${model.provider}/${model.id}`, cost: model.cost }
}

/** The committed scripted run: its figures are docs/eval.md's, and the README's summary. */
export const committedScripted = join(repoRoot, "eval", "results", "scripted")
/** The committed sweeps beside it: the arms' settings, and the stand-in's variants. */
export const committedSweeps = [join(repoRoot, "eval", "results", "sweep"), join(repoRoot, "eval", "results", "sensitivity")]

/** The runs of a sweep folder: one folder per setting, each an eval run's --out. */
export const readSweep = (dir: string): ReadonlyArray<SweepSetting> =>
  !existsSync(dir) ? [] : readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "results.jsonl")))
    .map((entry) => ({ name: entry.name, results: readResults(join(dir, entry.name)) }))
    .sort((a, b) => a.name.localeCompare(b.name))

/**
 * The default run's runs of the tasks the sweep ran: the arms' defaults are compared with their best settings on the
 * same tasks (a sweep may cover only some of the default run's tasks).
 */
const onSweptTasks = (results: ReadonlyArray<RunResult>, settings: ReadonlyArray<SweepSetting>): ReadonlyArray<RunResult> => {
  const tasks = new Set(settings.flatMap((setting) => setting.results.map((run) => run.task)))
  return tasks.size === 0 ? results : results.filter((run) => tasks.has(run.task))
}

/** The committed run with its sweeps: the default run first, so that its runs stand for the arms' defaults. */
export const committedSweep = (results: ReadonlyArray<RunResult>): ReadonlyArray<SweepSetting> => {
  const settings = committedSweeps.flatMap(readSweep)
  return [{ name: "scripted", results: onSweptTasks(results, settings) }, ...settings]
}

/** A name from a task folder or a results file as report.md shows it: no control character, no link, tag, code or table cell of its own. */
const reportName = (name: string) => printable(name).replace(/[`[\]<>|]/g, "\\$&")

export const writeReport = async (dir: string, results: ReadonlyArray<RunResult>): Promise<void> => {
  const committed = resolve(dir) === committedScripted
  const reference = await priceReference()
  const sweep = committed ? committedSweep(results) : []
  const shown = results.map((result) => ({ ...result, task: reportName(result.task), arm: reportName(result.arm) }))
  writeFileSync(join(dir, "report.md"), renderReport(shown, reference, sweep))
  writeFileSync(join(dir, "chart.svg"), await renderChart(results))
  if (committed) writeReadmeFigures(repoRoot, results, sweep, reference)
}

export const readResults = (dir: string): ReadonlyArray<RunResult> => {
  const file = join(dir, "results.jsonl")
  if (!existsSync(file)) throw new Error(`${dir} has no results.jsonl: name the folder of an earlier eval run (its --out)`)
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as RunResult)
}

const sameRun = (a: { task: string; arm: string; seed: number }, b: { task: string; arm: string; seed: number }) => a.task === b.task && a.arm === b.arm && a.seed === b.seed

const main = async () => {
  const argv = process.argv.slice(2)
  const given = parseArgs(argv)
  const invokedFrom = process.env.INIT_CWD ?? process.cwd()
  if (given.sweep !== undefined) {
    const dir = resolve(invokedFrom, given.sweep)
    if (!existsSync(dir)) throw new Error(`--sweep ${dir}: no such folder; name the folder that holds one eval run per setting`)
    const settings = readSweep(dir)
    // The committed sweeps are read with the committed run, whose runs are every arm's defaults.
    const withDefaults = committedSweeps.includes(resolve(dir)) && existsSync(join(committedScripted, "results.jsonl"))
      ? [{ name: "scripted", results: onSweptTasks(readResults(committedScripted), settings) }, ...settings]
      : settings
    writeFileSync(join(dir, "sweep.md"), sweepTable(withDefaults, await priceReference()))
    process.stderr.write(`wrote ${join(dir, "sweep.md")} from ${settings.length} settings\n`)
    return
  }
  if (given.report !== undefined) {
    const dir = resolve(invokedFrom, given.report)
    await writeReport(dir, readResults(dir))
    process.stderr.write(`rebuilt ${join(dir, "report.md")} and chart.svg${dir === committedScripted ? ", and the eval figures of docs/eval.md and the README" : ""}\n`)
    return
  }
  // Everything is checked before a file is touched: the folder, the tasks, the arms' extensions, the model and its key.
  const resumed = given.resume === undefined ? undefined : resolve(invokedFrom, given.resume)
  const marker = resumed === undefined ? undefined : resumeFrom(resumed)
  const options = marker === undefined ? given : parseArgs([...marker.argv, ...(argv.includes("--jobs") ? ["--jobs", String(given.jobs)] : [])])
  const plan = resumed === undefined ? planOut(options, invokedFrom, repoRoot) : { dir: resumed, note: undefined }
  const out = plan.dir
  const all = jobsFor(options, invokedFrom, out)
  checkWritable(out, resumed === undefined ? "--out" : "--resume", runWrites(out, all.map((spec) => spec.runDir)))
  checkArms(options, invokedFrom)
  if (marker !== undefined) await confirmResume(describeResume(out, marker.argv, options, invokedFrom))
  await checkModel(options, getAgentDir(), true)
  // A resumed run keeps the results its task decided; one the provider or the harness ended is run again.
  const earlier = resumed !== undefined && existsSync(join(out, "results.jsonl")) ? readResults(out).filter((result) => !isInfrastructureFailure(result.failure)) : []
  const specs = all.filter((spec) => !earlier.some((result) => sameRun(result, spec)))
  if (resumed === undefined) startOut(out, argv, all.map((spec) => spec.runDir))
  else {
    writeFileSync(join(out, "results.jsonl"), earlier.map((result) => `${JSON.stringify(result)}\n`).join(""))
    // A run the stopped one began and never finished starts again from nothing.
    for (const spec of specs) removeOwn(out, relative(out, spec.runDir))
  }
  if (plan.note !== undefined) process.stderr.write(`${plan.note}\n`)
  process.stderr.write(
    `${specs.length} runs${resumed === undefined ? "" : ` (${earlier.length} done before)`} · model ${options.model} · arms ${options.arms.join(", ")} · ` +
      `window ${options.window} · ${options.jobs} at a time · ${relative(invokedFrom, out) || "."}\n`
  )
  const results = await runPool(specs, {
    jobs: options.jobs,
    maxUsd: options.maxUsd,
    progress: process.stderr,
    // Session paths relative to the results, so a committed results.jsonl points into its own sessions/.
    onResult: (result) => appendFileSync(join(out, "results.jsonl"), `${JSON.stringify({ ...result, sessionFile: result.sessionFile === undefined ? undefined : relative(out, result.sessionFile) })}\n`)
  })
  const everything = [...earlier, ...results]
  await writeReport(out, everything)
  const infrastructure = everything.filter((result) => isInfrastructureFailure(result.failure))
  process.stderr.write(`${everything.filter((result) => result.success).length}/${everything.length} runs succeeded · ${join(out, "report.md")}\n`)
  if (infrastructure.length > 0) {
    process.stderr.write(
      `${infrastructure.length} runs were ended by the provider or the harness, not by their task (the report leaves them out of every figure); ` +
        `run them again with: npm run eval -- --resume ${relative(invokedFrom, out) || "."}\n`
    )
    process.exitCode = 2
  }
}

/** What `--resume` will run, said before it runs it; on a terminal, it runs only once the user says yes. */
const confirmResume = async (description: string): Promise<void> => {
  process.stderr.write(`${description}\n`)
  if (process.stdin.isTTY !== true) return
  const { createInterface } = await import("node:readline/promises")
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  const answer = await prompt.question("Run it? [y/N] ")
  prompt.close()
  if (!/^y(es)?$/i.test(answer.trim())) throw new Error("Nothing was run.")
}

if (import.meta.main) {
  await main().catch((error: unknown) => {
    if (error instanceof HelpAsked) {
      process.stdout.write(`${error.message}\n`)
      process.exit(0)
    }
    // A message may quote a task folder's name or a file's text: never a control character on the terminal.
    process.stderr.write(`${(error instanceof Error ? error.message : String(error)).split("\n").map(printable).join("\n")}\n`)
    process.exit(1)
  })
}
