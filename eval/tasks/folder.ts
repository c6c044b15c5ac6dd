/**
 * Tasks from a folder (`--tasks-dir DIR`), so a user can evaluate on their
 * own work: one folder per task, holding `task.json` and optionally `repo/`
 * (the starting repository, copied for each run). The format:
 *
 *   {
 *     "prompt": "the opening request",
 *     "followUps": ["sent, in order, whenever the agent is idle"],
 *     "midTask": { "text": "steered in after that many calls of Pi's own tools (optional)", "afterWorkCalls": 20 },
 *     "setup": "a shell command run in the fresh repository first (optional; $EVAL_SEED is the seed)",
 *     "verify": "a shell command run in the repository at the end: exit 0 means solved",
 *     "facts": [{ "name": "what the probes ask for", "pattern": "a regular expression its answer must match" }]
 *   }
 *
 * Both commands run with `bash -c`, the task's folder in $EVAL_TASK_DIR. No
 * scripted solver can work a task it has never seen: folder tasks need a real
 * model, and the eval says so before it starts.
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Task, TaskFact, UserMessageSpec } from "./taskTypes.ts"

interface TaskFile {
  readonly prompt: string
  readonly followUps?: ReadonlyArray<string>
  readonly midTask?: { readonly text: string; readonly afterWorkCalls: number }
  readonly setup?: string
  readonly verify: string
  readonly facts?: ReadonlyArray<{ readonly name: string; readonly pattern: string }>
}

const CommandTimeoutMs = 300_000

const shell = (command: string, cwd: string, taskDir: string, seed: number) =>
  execFileSync("bash", ["-c", command], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: CommandTimeoutMs,
    env: { ...process.env, EVAL_TASK_DIR: taskDir, EVAL_SEED: String(seed) }
  })

const outputOf = (error: unknown) => {
  const failed = error as { stdout?: string; stderr?: string; message: string }
  return (`${failed.stdout ?? ""}${failed.stderr ?? ""}` || failed.message).trim()
}

const isStrings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string")

/** `task.json` read and checked: every mistake named with the file, before any run. */
const readTaskFile = (taskDir: string): TaskFile => {
  const file = join(taskDir, "task.json")
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"))
  } catch (error) {
    throw new Error(`${file} is not readable JSON (${error instanceof Error ? error.message : String(error)}); a task folder needs a task.json`)
  }
  const task = parsed as Partial<TaskFile> & Record<string, unknown>
  const wrong = [
    typeof task.prompt === "string" && task.prompt.trim() !== "" ? undefined : "\"prompt\" (text)",
    typeof task.verify === "string" && task.verify.trim() !== "" ? undefined : "\"verify\" (a shell command)",
    task.followUps === undefined || isStrings(task.followUps) ? undefined : "\"followUps\" (a list of texts)",
    task.midTask === undefined || (typeof task.midTask?.text === "string" && Number.isSafeInteger(task.midTask?.afterWorkCalls) && task.midTask.afterWorkCalls > 0)
      ? undefined
      : "\"midTask\" ({ text, afterWorkCalls: a whole number of calls })",
    task.setup === undefined || typeof task.setup === "string" ? undefined : "\"setup\" (a shell command)",
    task.facts === undefined || (Array.isArray(task.facts) && task.facts.every((fact) => typeof fact?.name === "string" && typeof fact?.pattern === "string"))
      ? undefined
      : "\"facts\" (a list of { name, pattern })"
  ].filter((field) => field !== undefined)
  if (wrong.length > 0) throw new Error(`${file} needs ${wrong.join(", ")}`)
  for (const fact of task.facts ?? []) {
    try {
      new RegExp(fact.pattern)
    } catch {
      throw new Error(`${file}: the pattern of fact "${fact.name}" is no regular expression: ${fact.pattern}`)
    }
  }
  return task as TaskFile
}

const refusesScripted = () => {
  throw new Error("folder tasks need a real model (--model provider/id): the scripted agent knows only the built-in tasks")
}

export const folderTask = (taskDir: string, name: string): Task => {
  const spec = readTaskFile(taskDir)
  return {
    name,
    kind: `a task from ${taskDir}`,
    generate: (dir, seed) => {
      if (existsSync(join(taskDir, "repo"))) cpSync(join(taskDir, "repo"), dir, { recursive: true })
      if (spec.setup === undefined) return
      try {
        shell(spec.setup, dir, taskDir, seed)
      } catch (error) {
        throw new Error(`the setup of task ${name} failed: ${outputOf(error).slice(0, 300)}`)
      }
    },
    messages: () => [
      { id: "prompt", when: "start", text: spec.prompt },
      ...(spec.followUps ?? []).map((text, index): UserMessageSpec => ({ id: `follow-up-${index + 1}`, when: "idle", text })),
      ...(spec.midTask === undefined ? [] : [{ id: "mid-task", when: "progress", afterWorkCalls: spec.midTask.afterWorkCalls, text: spec.midTask.text } satisfies UserMessageSpec])
    ],
    verify: (dir, seed) => {
      try {
        shell(spec.verify, dir, taskDir, seed)
        return { pass: true, failures: [] }
      } catch (error) {
        return { pass: false, failures: [`${spec.verify} failed: ${outputOf(error).slice(-300)}`] }
      }
    },
    facts: () => (spec.facts ?? []).map((fact): TaskFact => ({ name: fact.name, question: `What is ${fact.name}?`, pattern: new RegExp(fact.pattern), source: "said once", key: fact.name })),
    solve: refusesScripted,
    solver: { learn: () => {}, next: refusesScripted }
  }
}

/** Every task folder of `dir` (a folder holding a task.json), by folder name. */
export const folderTasks = (dir: string): ReadonlyArray<Task> => {
  if (!existsSync(dir)) throw new Error(`--tasks-dir ${dir}: no such folder; name a folder with one folder per task, each holding a task.json`)
  const found = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "task.json")))
    .map((entry) => folderTask(join(dir, entry.name), entry.name))
    .sort((a, b) => a.name.localeCompare(b.name))
  if (found.length === 0) throw new Error(`--tasks-dir ${dir} holds no task: each task is a folder with a task.json (README: "Your own tasks")`)
  return found
}
