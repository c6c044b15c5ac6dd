/**
 * A worker process runs one job, so parallel jobs never share Pi's
 * process-wide state (its agent dir and pi-context's notes root are
 * environment variables). It prints JSON lines: progress, then the result.
 */
import { taskNamed } from "../tasks/index.ts"
import { emptyResult, runJob } from "./runJob.ts"
import type { JobSpec } from "./types.ts"

const spec = JSON.parse(process.argv[2] ?? "{}") as JobSpec
const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`)
const started = Date.now()
const result = await runJob(spec, taskNamed(spec.task, spec.tasksDir), (progress) => print({ type: "progress", progress })).catch((error: unknown) =>
  emptyResult(spec, { kind: "harness", message: error instanceof Error ? (error.stack ?? error.message) : String(error) }, started)
)
print({ type: "result", result })
process.exit(0)
