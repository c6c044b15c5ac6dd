/**
 * Tasks from a folder (`--tasks-dir DIR`), so a user can evaluate on their
 * own work: one folder per task, holding `task.json` and optionally `repo/`
 * (the starting repository, copied for each run). The format:
 *
 *   {
 *     "prompt": "the opening request",
 *     "followUps": ["sent, in order, whenever the agent is idle", { "text": "or a question", "answer": "a pattern its reply must match" }],
 *     "midTask": { "text": "steered in after that many calls of Pi's own tools (optional)", "afterWorkCalls": 20, "answer": "(optional)" },
 *     "setup": "a shell command run in the fresh repository first (optional; $EVAL_SEED is the seed)",
 *     "verify": "a shell command run in the repository at the end: exit 0 means solved",
 *     "facts": [{ "name": "what the probes ask for", "pattern": "a regular expression its answer must match" }],
 *     "nextSession": { "prompt": "a second session's opening request (optional)", "followUps": ["as above"] }
 *   }
 *
 * With `nextSession`, a run is two sessions: the second a fresh Pi session in the
 * same repository, agent dir and notes root, sent its own prompt and follow-ups,
 * so it knows only what the first kept outside its chat.
 *
 * Both commands run with `bash -c`, the task's folder in $EVAL_TASK_DIR, in a
 * process group of their own killed whole at their limit. Every pattern runs
 * on the notes search's engine (RE2: linear in the text, case ignored, within
 * one line) or is refused. `repo/` is copied link for link, and a link that
 * leads out of it is refused before any run: a run's writes never land in the
 * task's folder or anywhere else. No scripted solver can work a task it has
 * never seen: folder tasks need a real model, and the eval says so before it
 * starts.
 */
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs"
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import { RE2JS } from "re2js"
import { maxRegexLength, maxRegexProgram } from "../../src/kernel/patterns.ts"
import { echo } from "../../src/kernel/toolOutcome.ts"
import { headAndTail, runCommand } from "../harness/command.ts"
import type { Task, TaskFact, UserMessageSpec } from "./taskTypes.ts"

interface Message {
  readonly text: string
  readonly answer?: string
}

interface TaskFile {
  readonly prompt: string
  readonly followUps?: ReadonlyArray<string | Message>
  readonly midTask?: Message & { readonly afterWorkCalls: number }
  readonly setup?: string
  readonly verify: string
  readonly facts?: ReadonlyArray<{ readonly name: string; readonly pattern: string }>
  readonly nextSession?: { readonly prompt: string; readonly followUps?: ReadonlyArray<string | Message> }
}

/** The limit of one `setup` or `verify` command. */
export const CommandTimeoutMs = 300_000
/** The largest task.json read: a task's text, never a data file (nor a device that never ends). */
export const MaxTaskFileBytes = 256 * 1024
/** What a failure keeps of a command's output, head and tail. */
const OutputShown = 2_000

/** Text from a task folder as the terminal and report.md show it: controls and invisible characters written out. */
export const printable = (text: string): string => echo(text, Number.MAX_SAFE_INTEGER)

const shell = (command: string, cwd: string, taskDir: string, seed: number, timeoutMs: number) =>
  runCommand(command, { cwd, timeoutMs, env: { ...process.env, EVAL_TASK_DIR: taskDir, EVAL_SEED: String(seed) } })

/**
 * A RegExp whose every match runs on RE2 (the notes search's engine, linear in the text): `exec` is what `test`,
 * `match`, `replace` and `search` all call, so none of them can backtrack.
 */
class LinearRegExp extends RegExp {
  readonly #re2: RE2JS
  constructor(source: string, re2: RE2JS) {
    super(source)
    this.#re2 = re2
  }
  override exec(text: string): RegExpExecArray | null {
    const matcher = this.#re2.matcher(text)
    if (!matcher.find()) return null
    const groups = Array.from({ length: this.#re2.groupCount() + 1 }, (_, group) => matcher.group(group) ?? undefined)
    return Object.assign(groups as unknown as RegExpExecArray, { index: matcher.start(), input: text })
  }
}

/** A pattern of `file` on RE2, or a sentence naming the field and why it cannot be used. */
const linearPattern = (file: string, field: string, source: string): RegExp => {
  const refuse = (why: string) => new Error(`${file}: ${field} ${why}: ${printable(source.slice(0, 200))}`)
  if (source.length > maxRegexLength) throw refuse(`is over ${maxRegexLength} characters`)
  let re2: RE2JS
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(source))
  } catch (error) {
    throw refuse(`is no regular expression RE2 runs (${error instanceof Error ? error.message : String(error)}; RE2 has no backreferences or lookaround)`)
  }
  if (re2.programSize() > maxRegexProgram) throw refuse(`is too complex (${re2.programSize()} steps, over ${maxRegexProgram})`)
  try {
    return new LinearRegExp(source, re2)
  } catch {
    throw refuse("is no JavaScript regular expression")
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)
const isText = (value: unknown): value is string => typeof value === "string" && value.trim() !== ""
const isMessage = (value: unknown): boolean => isObject(value) && isText(value.text) && (value.answer === undefined || typeof value.answer === "string")
const isFollowUps = (value: unknown): boolean => value === undefined || (Array.isArray(value) && value.every((item) => typeof item === "string" || isMessage(item)))

/** The checks of task.json, field by field: what each must be. */
const fieldChecks: ReadonlyArray<readonly [string, (task: Record<string, unknown>) => boolean]> = [
  ["\"prompt\" (text)", (task) => isText(task.prompt)],
  ["\"verify\" (a shell command)", (task) => isText(task.verify)],
  ["\"followUps\" (a list of texts, or of { text, answer })", (task) => isFollowUps(task.followUps)],
  [
    "\"midTask\" ({ text, afterWorkCalls: a whole number of calls, answer (optional) })",
    (task) => task.midTask === undefined || (isMessage(task.midTask) && Number.isSafeInteger((task.midTask as { afterWorkCalls?: unknown }).afterWorkCalls) && ((task.midTask as { afterWorkCalls: number }).afterWorkCalls > 0))
  ],
  ["\"setup\" (a shell command)", (task) => task.setup === undefined || typeof task.setup === "string"],
  ["\"nextSession\" ({ prompt, followUps (optional) })", (task) => task.nextSession === undefined || (isObject(task.nextSession) && isText(task.nextSession.prompt) && isFollowUps(task.nextSession.followUps))],
  ["\"facts\" (a list of { name, pattern })", (task) => task.facts === undefined || (Array.isArray(task.facts) && task.facts.every((fact) => isObject(fact) && typeof fact.name === "string" && typeof fact.pattern === "string"))]
]

/** The text of task.json: a regular file (following a link) under the size limit, never a FIFO or a device. */
const taskFileText = (file: string): string => {
  let stats
  try {
    stats = statSync(file)
  } catch (error) {
    throw new Error(`${file} cannot be read (${error instanceof Error ? error.message : String(error)}); a task folder needs a task.json`)
  }
  if (!stats.isFile()) throw new Error(`${file} is not a regular file (a FIFO, a device or a folder); a task.json is a file of JSON`)
  if (stats.size > MaxTaskFileBytes) throw new Error(`${file} is ${stats.size.toLocaleString("en-US")} bytes, over the limit of ${MaxTaskFileBytes.toLocaleString("en-US")} for a task.json`)
  return readFileSync(file, "utf8")
}

interface CheckedTask {
  readonly spec: TaskFile
  readonly facts: ReadonlyArray<{ readonly name: string; readonly pattern: RegExp }>
  readonly answers: ReadonlyMap<string, RegExp>
}

/** `task.json` read and checked: every mistake named with the file and the field, before any run. */
const readTaskFile = (taskDir: string): CheckedTask => {
  const file = join(taskDir, "task.json")
  let parsed: unknown
  try {
    parsed = JSON.parse(taskFileText(file))
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(`${file} is not readable JSON (${error.message}); a task folder needs a task.json`)
    throw error
  }
  if (!isObject(parsed)) throw new Error(`${file} holds ${parsed === null ? "null" : Array.isArray(parsed) ? "a list" : `a ${typeof parsed}`}, not an object with "prompt" and "verify"`)
  const wrong = fieldChecks.filter(([, check]) => !check(parsed)).map(([field]) => field)
  if (wrong.length > 0) throw new Error(`${file} needs ${wrong.join(", ")}`)
  const spec = parsed as unknown as TaskFile
  const answers = new Map<string, RegExp>()
  spec.followUps?.forEach((item, index) => {
    if (typeof item !== "string" && item.answer !== undefined) answers.set(`follow-up-${index + 1}`, linearPattern(file, `the answer of followUps[${index}]`, item.answer))
  })
  spec.nextSession?.followUps?.forEach((item, index) => {
    if (typeof item !== "string" && item.answer !== undefined) answers.set(`next-follow-up-${index + 1}`, linearPattern(file, `the answer of nextSession.followUps[${index}]`, item.answer))
  })
  if (spec.midTask?.answer !== undefined) answers.set("mid-task", linearPattern(file, "the answer of midTask", spec.midTask.answer))
  const facts = (spec.facts ?? []).map((fact) => ({ name: fact.name, pattern: linearPattern(file, `the pattern of fact "${fact.name}"`, fact.pattern) }))
  return { spec, facts, answers }
}

/**
 * Every entry of `repo/` that a copy could not keep inside the copy: a link that is absolute or leads out of
 * `repo/`, and anything that is neither a file, a folder nor a link (a FIFO would hang the copy). `repo/` itself
 * must be a folder, not a link.
 */
export const linksOut = (repo: string): ReadonlyArray<string> => {
  if (lstatSync(repo).isSymbolicLink()) return [`${repo} is a link (make repo/ a folder)`]
  const found: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isSymbolicLink()) {
        const target = readlinkSync(path)
        const landing = resolve(dirname(path), target)
        const inside = !isAbsolute(target) && (landing === repo || landing.startsWith(`${repo}${sep}`))
        if (!inside) found.push(`${relative(repo, path)} -> ${target}`)
      } else if (entry.isDirectory()) walk(path)
      else if (!entry.isFile()) found.push(`${relative(repo, path)} (neither a file, a folder nor a link)`)
    }
  }
  walk(repo)
  return found
}

const refusesScripted = () => {
  throw new Error("folder tasks need a real model (--model provider/id): the scripted agent knows only the built-in tasks")
}

/** A session's follow-ups as messages sent when idle, each graded by its answer when it names one. */
const followUps = (items: ReadonlyArray<string | Message> | undefined, prefix: string, session: number, answers: ReadonlyMap<string, RegExp>): ReadonlyArray<UserMessageSpec> =>
  (items ?? []).map((item, index): UserMessageSpec => {
    const id = `${prefix}-${index + 1}`
    const answer = answers.get(id)
    return { id, when: "idle", text: typeof item === "string" ? item : item.text, ...(session === 1 ? {} : { session }), ...(answer === undefined ? {} : { answer, mustAnswer: true }) }
  })

export const folderTask = (taskDir: string, name: string): Task => {
  const { spec, facts, answers } = readTaskFile(taskDir)
  const repo = join(taskDir, "repo")
  const hasRepo = readdirSync(taskDir).includes("repo")
  if (hasRepo) {
    const outside = linksOut(repo)
    if (outside.length > 0) {
      throw new Error(`${repo} holds ${outside.length === 1 ? "an entry" : "entries"} a run's copy could not keep inside itself: ${outside.map(printable).join("; ")}. Make each link relative and inside repo/. No run was started.`)
    }
  }
  const commandLimit = (deadline: number | undefined) => Math.max(1_000, Math.min(CommandTimeoutMs, deadline === undefined ? CommandTimeoutMs : deadline - Date.now()))
  return {
    name,
    kind: `a task from ${taskDir}`,
    ...(spec.setup === undefined ? {} : { setup: spec.setup }),
    generate: (dir, seed, deadline) => {
      // Links copied as they are (relative, inside the copy), never followed and never rewritten to point back here.
      if (hasRepo) cpSync(repo, dir, { recursive: true, verbatimSymlinks: true })
      if (spec.setup === undefined) return
      const outcome = shell(spec.setup, dir, taskDir, seed, commandLimit(deadline))
      if (!outcome.ok) throw new Error(`the setup of task ${name} failed: ${headAndTail(outcome.output.trim(), OutputShown)}`)
    },
    ...(spec.nextSession === undefined ? {} : { sessions: 2 }),
    messages: () => [
      { id: "prompt", when: "start", text: spec.prompt },
      ...followUps(spec.followUps, "follow-up", 1, answers),
      ...(spec.midTask === undefined
        ? []
        : [{
          id: "mid-task",
          when: "progress",
          afterWorkCalls: spec.midTask.afterWorkCalls,
          text: spec.midTask.text,
          ...(answers.has("mid-task") ? { answer: answers.get("mid-task")!, mustAnswer: true } : {})
        } satisfies UserMessageSpec]),
      ...(spec.nextSession === undefined
        ? []
        : [{ id: "next-prompt", when: "start", session: 2, text: spec.nextSession.prompt } satisfies UserMessageSpec, ...followUps(spec.nextSession.followUps, "next-follow-up", 2, answers)])
    ],
    verify: (dir, seed, deadline) => {
      const outcome = shell(spec.verify, dir, taskDir, seed, commandLimit(deadline))
      return outcome.ok ? { pass: true, failures: [] } : { pass: false, failures: [`${spec.verify} failed: ${headAndTail(outcome.output.trim(), OutputShown)}`] }
    },
    facts: () => facts.map((fact): TaskFact => ({ name: fact.name, question: `What is ${fact.name}?`, pattern: fact.pattern, source: "said once", key: fact.name })),
    solve: refusesScripted,
    solver: { learn: () => {}, next: refusesScripted }
  }
}

/** Every task folder of `dir` (a folder holding a task.json), by folder name, written printable. */
export const folderTasks = (dir: string): ReadonlyArray<Task> => {
  if (!existsSync(dir)) throw new Error(`--tasks-dir ${dir}: no such folder; name a folder with one folder per task, each holding a task.json`)
  const found = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "task.json")))
    .map((entry) => folderTask(join(dir, entry.name), printable(entry.name)))
    .sort((a, b) => a.name.localeCompare(b.name))
  if (found.length === 0) throw new Error(`--tasks-dir ${dir} holds no task: each task is a folder with a task.json (docs/eval.md: "Your own tasks")`)
  return found
}
