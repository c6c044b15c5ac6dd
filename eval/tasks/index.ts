/** Every eval task, by name. */
import { buildKey } from "./build-key/task.ts"
import { chainedRequests } from "./chained-requests/task.ts"
import { frozenRules } from "./frozen-rules/task.ts"
import { ledgerStages } from "./ledger-stages/task.ts"
import { logClue } from "./log-clue/task.ts"
import { midQuestion } from "./mid-question/task.ts"
import { renameSymbol } from "./rename-symbol/task.ts"
import { vaultSlots } from "./vault-slots/task.ts"
import { flagRollout } from "./flag-rollout/task.ts"
import { dependencyPins } from "./dependency-pins/task.ts"
import { schemaColumns } from "./schema-columns/task.ts"
import { accessRoles } from "./access-roles/task.ts"
import { dnsRecords } from "./dns-records/task.ts"
import { cronSchedule } from "./cron-schedule/task.ts"
import { priceTable } from "./price-table/task.ts"
import { routeTable } from "./route-table/task.ts"
import { localeStrings } from "./locale-strings/task.ts"
import { handoverProject } from "./handover-project/task.ts"
import { handoverUser } from "./handover-user/task.ts"
import { folderTasks } from "./folder.ts"
import type { Task } from "./taskTypes.ts"

const coreTasks: ReadonlyArray<Task> = [renameSymbol, ledgerStages, logClue, frozenRules, buildKey, midQuestion, chainedRequests]

/** The desk families (./desk.ts): facts revealed step by step by the environment, short cuts caught by its log; two span two sessions. */
export const deskFamilies: ReadonlyArray<Task> = [
  vaultSlots, flagRollout, dependencyPins, schemaColumns, accessRoles, dnsRecords, cronSchedule, priceTable, routeTable, localeStrings, handoverProject, handoverUser
]

export const tasks: ReadonlyArray<Task> = [...coreTasks, ...deskFamilies]

/** The tasks a run chooses from: the built-in ones, or the user's folder of tasks. */
export const tasksFrom = (tasksDir: string | undefined): ReadonlyArray<Task> => (tasksDir === undefined ? tasks : folderTasks(tasksDir))

export const taskNamed = (name: string, tasksDir?: string): Task => {
  const known = tasksFrom(tasksDir)
  const task = known.find((candidate) => candidate.name === name)
  if (task === undefined) throw new Error(`no task named ${name} (tasks: ${known.map((candidate) => candidate.name).join(", ")})`)
  return task
}
