/** Runs jobs in worker processes, a few at a time, with live progress on stderr. */
import { spawn } from "node:child_process"
import { join } from "node:path"
import type { JobSpec, Progress, RunResult } from "./types.ts"
import { emptyResult } from "./runJob.ts"
import { printable } from "../tasks/folder.ts"

const workerPath = join(import.meta.dirname, "worker.ts")

export interface PoolOptions {
  readonly jobs: number
  readonly maxUsd: number | undefined
  /** Draws progress; absent: silent (tests). */
  readonly progress?: NodeJS.WriteStream
  readonly onResult?: (result: RunResult) => void
}

interface Running {
  readonly spec: JobSpec
  readonly started: number
  progress: Progress | undefined
}

/** A run as its progress line names it; a task folder's name may hold anything, the terminal sees no control character. */
const label = (spec: JobSpec) => `${printable(spec.task)} · ${printable(spec.arm)} · seed ${spec.seed}`

/** Past its deadline a worker has this long to write its result before the pool ends it (a command it waits on, a hung call). */
export const PoolGraceMs = 30_000
/** After SIGTERM, how long a worker has before SIGKILL. */
const KillGraceMs = 5_000
const seconds = (ms: number) => `${Math.round(ms / 1000)}s`

/**
 * One worker process for one job; its result, or a harness failure if the worker died. The pool holds every run to
 * its deadline whatever the worker does: past `runTimeoutMs` and `graceMs`, the worker is ended and the run is a timeout.
 */
export const runWorker = (spec: JobSpec, onProgress: (progress: Progress) => void, graceMs = PoolGraceMs): Promise<RunResult> =>
  new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(process.execPath, ["--experimental-strip-types", "--no-warnings", workerPath, JSON.stringify(spec)], { stdio: ["ignore", "pipe", "pipe"] })
    let overdue = false
    const kill = setTimeout(() => {
      overdue = true
      child.kill("SIGTERM")
      setTimeout(() => child.kill("SIGKILL"), KillGraceMs).unref()
    }, spec.runTimeoutMs + graceMs)
    let buffer = ""
    let stderr = ""
    let result: RunResult | undefined
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk
      const lines = buffer.split("\n")
      buffer = lines.pop() ?? ""
      for (const line of lines) {
        if (line.trim() === "") continue
        const message = JSON.parse(line) as { type: "progress"; progress: Progress } | { type: "result"; result: RunResult }
        if (message.type === "progress") onProgress(message.progress)
        else result = message.result
      }
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr = (stderr + chunk).slice(-4000)))
    child.on("exit", () => clearTimeout(kill))
    child.on("close", (code) => {
      if (result === undefined && overdue) resolve(emptyResult(spec, { kind: "timeout", message: `the run passed its ${spec.runTimeoutMs} ms limit: the pool ended its worker` }, started))
      else resolve(result ?? emptyResult(spec, { kind: "harness", message: `worker exited with ${code}: ${stderr.trim()}` }, started))
    })
  })

export const runPool = async (specs: ReadonlyArray<JobSpec>, options: PoolOptions): Promise<ReadonlyArray<RunResult>> => {
  const results: Array<RunResult> = []
  const running = new Set<Running>()
  const started = Date.now()
  let next = 0
  let spent = 0
  let drawnLines = 0
  const draw = () => {
    const out = options.progress
    if (out === undefined) return
    const done = results.length
    const elapsed = Date.now() - started
    const perJob = done === 0 ? undefined : elapsed / done
    const left = perJob === undefined ? "?" : seconds((perJob * (specs.length - done)) / Math.max(1, options.jobs))
    const costLeft = done === 0 ? "?" : `$${((spent / done) * (specs.length - done)).toFixed(2)}`
    const width = 30
    const filled = Math.round((done / Math.max(1, specs.length)) * width)
    const lines = [
      ...[...running].map((job) => {
        const p = job.progress
        return `  ${label(job.spec)} · turn ${p?.turn ?? 0} · ${p?.calls ?? 0} calls · ${(p?.tokens ?? 0).toLocaleString("en-US")} tokens · ${p?.turnovers ?? 0} turnover${p?.turnovers === 1 ? "" : "s"} · ${seconds(Date.now() - job.started)}`
      }),
      `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${specs.length} runs · ${seconds(elapsed)} · about ${left} and ${costLeft} left · spent $${spent.toFixed(2)}`
    ]
    if (out.isTTY) {
      if (drawnLines > 0) out.write(`\x1b[${drawnLines}A`)
      out.write(lines.map((line) => `\x1b[2K${line.slice(0, (out.columns ?? 160) - 1)}\n`).join(""))
      drawnLines = lines.length
    }
  }
  const ticker = setInterval(draw, 500)
  const launch = async (): Promise<void> => {
    while (next < specs.length) {
      if (options.maxUsd !== undefined && spent >= options.maxUsd) {
        options.progress?.write(`--max-usd ${options.maxUsd}: stopping with ${specs.length - next} jobs not started ($${spent.toFixed(2)} spent)\n`)
        next = specs.length
        return
      }
      const spec = specs[next++]!
      const job: Running = { spec, started: Date.now(), progress: undefined }
      running.add(job)
      const result = await runWorker(spec, (progress) => void (job.progress = progress))
      running.delete(job)
      spent += result.costUsd
      results.push(result)
      options.onResult?.(result)
      if (options.progress !== undefined && !options.progress.isTTY) {
        options.progress.write(`${label(spec)}: ${result.success ? "success" : "failure"} · ${result.modelCalls} calls · ${result.turnovers.total} turnovers · ${seconds(result.wallMs)}${result.failure === undefined ? "" : ` · ${result.failure.kind}`}\n`)
      }
      draw()
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.jobs, specs.length) }, launch))
  clearInterval(ticker)
  draw()
  return results
}
