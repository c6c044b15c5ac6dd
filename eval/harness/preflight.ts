/**
 * Everything `npm run eval` can check before it touches a file or starts a
 * run: the task names, each `ext:` arm's extension, and a real model's
 * presence and key in the user's Pi set-up. A mistake is one sentence with
 * its fix, and nothing has been written or deleted when it is said.
 */
import { join, resolve } from "node:path"
import type { EvalOptions } from "./args.ts"
import { extensionPath, modelOf, userRuntime } from "./session.ts"
import { printable } from "../tasks/folder.ts"
import { tasksFrom } from "../tasks/index.ts"

/** The names of the tasks to run, every one known; a folder of tasks read and checked whole. */
export const checkTasks = (options: EvalOptions, tasksDir: string | undefined): ReadonlyArray<string> => {
  if (tasksDir !== undefined && options.model === "scripted") {
    throw new Error("--tasks-dir needs a real model (--model provider/id): the scripted agent knows only the built-in tasks")
  }
  const known = tasksFrom(tasksDir)
  const names = options.tasks === "all" ? known.map((task) => task.name) : options.tasks
  for (const name of names) if (!known.some((task) => task.name === name)) throw new Error(`no task named ${name} (tasks: ${known.map((task) => task.name).join(", ")})`)
  return names
}

/**
 * What `--resume DIR` will run, from the marker of a folder that may be someone else's: the flags it names, each
 * arm with the extension code it loads, and each task's setup command.
 */
export const describeResume = (dir: string, argv: ReadonlyArray<string>, options: EvalOptions, invokedFrom: string): string => {
  const tasksDir = options.tasksDir === undefined ? undefined : resolve(invokedFrom, options.tasksDir)
  const names = new Set(checkTasks(options, tasksDir))
  const setups = tasksFrom(tasksDir).filter((task) => names.has(task.name) && task.setup !== undefined).map((task) => `  setup of ${task.name}: ${printable(task.setup!)}`)
  const arms = options.arms.map((arm) => `  arm ${printable(arm)}${arm.startsWith("ext:") ? `: loads ${extensionPath(arm.slice(4), invokedFrom)}` : ""}`)
  return [
    `--resume ${dir} runs what its eval-run.json names:`,
    `  flags: ${argv.length === 0 ? "(none: the default run)" : argv.map(printable).join(" ")}`,
    ...arms,
    ...(tasksDir === undefined ? [] : [`  tasks from ${tasksDir}`]),
    ...setups
  ].join("\n")
}

export const checkArms = (options: EvalOptions, invokedFrom: string): void => {
  for (const arm of options.arms) if (arm.startsWith("ext:")) extensionPath(arm.slice(4), invokedFrom)
}

/**
 * A real model must be in the user's models (built in, or their models.json) with a key or login Pi can use, and
 * (with `answers`) its endpoint must answer one short request within `--call-timeout`.
 */
export const checkModel = async (options: EvalOptions, userAgentDir: string, answers = false): Promise<void> => {
  if (options.model === "scripted") return
  const runtime = await userRuntime(userAgentDir)
  const model = modelOf(runtime, options.model)
  if (model === undefined) {
    throw new Error(`model ${options.model} is not in your Pi set-up (${join(userAgentDir, "models.json")} and Pi's built-in models); \`pi --list-models\` lists the models it can reach. No run was started.`)
  }
  const auth = await runtime.getAuth(model).catch(() => undefined)
  if (auth === undefined) {
    throw new Error(`model ${options.model} has no key or login in your Pi set-up: run \`pi\` and /login, set the provider's API key variable, or give the provider an apiKey in models.json. No run was started.`)
  }
  if (!answers) return
  const abort = new AbortController()
  const limit = setTimeout(() => abort.abort(), options.callTimeoutMs)
  const reply = await runtime
    .completeSimple(model, { messages: [{ role: "user", content: "Reply with the word ready.", timestamp: Date.now() }] }, { maxTokens: 16, signal: abort.signal })
    .catch((error: unknown) => ({ stopReason: "error" as const, errorMessage: error instanceof Error ? error.message : String(error) }))
    .finally(() => clearTimeout(limit))
  if (reply.stopReason === "error" || reply.stopReason === "aborted") {
    const why = abort.signal.aborted ? `no answer within --call-timeout (${options.callTimeoutMs / 1000} s)` : (reply.errorMessage ?? "an error with no message")
    throw new Error(`model ${options.model} did not answer a one-line request at ${model.baseUrl} (${why}): start its server, check its address in models.json, or raise --call-timeout for a slow one. No run was started.`)
  }
}
