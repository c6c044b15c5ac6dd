/** Every eval task, by name. */
import { buildKey } from "./build-key/task.ts"
import { frozenRules } from "./frozen-rules/task.ts"
import { ledgerStages } from "./ledger-stages/task.ts"
import { logClue } from "./log-clue/task.ts"
import { midQuestion } from "./mid-question/task.ts"
import { renameSymbol } from "./rename-symbol/task.ts"
import type { Task } from "./taskTypes.ts"

export const tasks: ReadonlyArray<Task> = [renameSymbol, ledgerStages, logClue, frozenRules, buildKey, midQuestion]

export const taskNamed = (name: string): Task => {
  const task = tasks.find((candidate) => candidate.name === name)
  if (task === undefined) throw new Error(`no task named ${name} (tasks: ${tasks.map((candidate) => candidate.name).join(", ")})`)
  return task
}
