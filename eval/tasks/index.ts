/** Every eval task, by name. */
import { buildKey } from "./build-key/task.ts"
import { chainedRequests } from "./chained-requests/task.ts"
import { frozenRules } from "./frozen-rules/task.ts"
import { ledgerStages } from "./ledger-stages/task.ts"
import { logClue } from "./log-clue/task.ts"
import { midQuestion } from "./mid-question/task.ts"
import { renameSymbol } from "./rename-symbol/task.ts"
import { folderTasks } from "./folder.ts"
import type { Task } from "./taskTypes.ts"

export const tasks: ReadonlyArray<Task> = [renameSymbol, ledgerStages, logClue, frozenRules, buildKey, midQuestion, chainedRequests]

/** The tasks a run chooses from: the built-in ones, or the user's folder of tasks. */
export const tasksFrom = (tasksDir: string | undefined): ReadonlyArray<Task> => (tasksDir === undefined ? tasks : folderTasks(tasksDir))

export const taskNamed = (name: string, tasksDir?: string): Task => {
  const known = tasksFrom(tasksDir)
  const task = known.find((candidate) => candidate.name === name)
  if (task === undefined) throw new Error(`no task named ${name} (tasks: ${known.map((candidate) => candidate.name).join(", ")})`)
  return task
}
