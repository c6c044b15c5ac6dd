/**
 * Everything `npm run eval` can check before it touches a file or starts a
 * run: the task names, each `ext:` arm's extension, and a real model's
 * presence and key in the user's Pi set-up. A mistake is one sentence with
 * its fix, and nothing has been written or deleted when it is said.
 */
import { join } from "node:path"
import type { EvalOptions } from "./args.ts"
import { extensionPath, modelOf, userRuntime } from "./session.ts"
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

export const checkArms = (options: EvalOptions, invokedFrom: string): void => {
  for (const arm of options.arms) if (arm.startsWith("ext:")) extensionPath(arm.slice(4), invokedFrom)
}

/** A real model must be in the user's models (built in, or their models.json) with a key or login Pi can use. */
export const checkModel = async (options: EvalOptions, userAgentDir: string): Promise<void> => {
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
}
