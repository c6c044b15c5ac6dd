/** Every eval task, by name. */
import { renameSymbol } from "./rename-symbol/task.ts"
import type { Task } from "./types.ts"

export const tasks: ReadonlyArray<Task> = [renameSymbol]

export const taskNamed = (name: string): Task => {
  const task = tasks.find((candidate) => candidate.name === name)
  if (task === undefined) throw new Error(`no task named ${name} (tasks: ${tasks.map((candidate) => candidate.name).join(", ")})`)
  return task
}
