/**
 * A folder task's `setup` or `verify` command, run in a process group of its
 * own and killed whole at its limit. Node's own timeout signals one process
 * and then waits for every pipe to close, so a command that ignores SIGTERM,
 * or leaves a background child holding its output, would hang the eval. The
 * callers are synchronous (a task's `generate` and `verify`), so the command
 * runs under a small supervisor process (this file, run as a script): it
 * starts `bash -c` as a group leader, kills the group at the limit, when the
 * command exits (its leftover children with it), and when the supervisor's
 * own parent goes away or signals it.
 */
import { spawn, spawnSync } from "node:child_process"

export interface CommandOutcome {
  readonly ok: boolean
  /** Its stdout then its stderr, as they came. */
  readonly output: string
  /** Killed at its limit. */
  readonly timedOut: boolean
}

interface Order {
  readonly command: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly timeoutMs: number
}

/** What the supervisor keeps of a command's output: its head and its tail, where a failure's cause and its verdict are. */
const OutputKept = 64_000

export const runCommand = (command: string, options: { readonly cwd: string; readonly env: Readonly<Record<string, string | undefined>>; readonly timeoutMs: number }): CommandOutcome => {
  const order: Order = { command, ...options }
  const supervisor = spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", import.meta.filename], {
    input: JSON.stringify(order),
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
    // The supervisor ends itself at the limit; this is the margin for a supervisor that could not.
    timeout: options.timeoutMs + 30_000,
    // JSON of the kept output: escapes can make it several times longer than the text.
    maxBuffer: 16 * 1024 * 1024
  })
  try {
    return JSON.parse(supervisor.stdout) as CommandOutcome
  } catch {
    return { ok: false, output: `the command's supervisor failed (${supervisor.error?.message ?? `exit ${supervisor.status}`}): ${supervisor.stderr ?? ""}`.trim(), timedOut: false }
  }
}

/** The head and the tail of `text` within `limit` characters, the cut said where it is. */
export const headAndTail = (text: string, limit: number): string => {
  if (text.length <= limit) return text
  const half = Math.floor(limit / 2)
  return `${text.slice(0, half)}\n… (${(text.length - 2 * half).toLocaleString("en-US")} characters left out) …\n${text.slice(-half)}`
}

const supervise = (order: Order): void => {
  let output = ""
  const keep = (chunk: string) => void (output = output.length + chunk.length > 2 * OutputKept ? headAndTail(output + chunk, OutputKept) : output + chunk)
  const child = spawn("bash", ["-c", order.command], { cwd: order.cwd, env: order.env, stdio: ["ignore", "pipe", "pipe"], detached: true })
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
    } catch {
      // The group is gone already.
    }
  }
  let finished = false
  const finish = (outcome: CommandOutcome) => {
    if (finished) return
    finished = true
    killGroup()
    process.stdout.write(JSON.stringify({ ...outcome, output: headAndTail(outcome.output, OutputKept) }), () => process.exit(0))
  }
  child.stdout.setEncoding("utf8").on("data", keep)
  child.stderr.setEncoding("utf8").on("data", keep)
  child.on("error", (error) => finish({ ok: false, output: error.message, timedOut: false }))
  // Exit, not close: a background child may hold the pipes open for as long as it likes.
  child.on("exit", (code, signal) => finish({ ok: code === 0, output: signal === null ? output : `${output}\n(ended by ${signal})`, timedOut: false }))
  setTimeout(() => finish({ ok: false, output: `${output}\n(killed at its limit of ${Math.round(order.timeoutMs / 1000)} s)`, timedOut: true }), order.timeoutMs).unref()
  const parent = process.ppid
  setInterval(() => {
    if (process.ppid !== parent) {
      killGroup()
      process.exit(1)
    }
  }, 500).unref()
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => {
      killGroup()
      process.exit(1)
    })
  }
}

if (import.meta.main) {
  let input = ""
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => void (input += chunk)).on("end", () => supervise(JSON.parse(input) as Order))
}
