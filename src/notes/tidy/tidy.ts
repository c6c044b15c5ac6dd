import { ToolName } from "../../kernel/protocol.ts"
import { plural } from "../../kernel/plural.ts"
import { parseAddress } from "../address.ts"
import { shownName } from "../../kernel/names.ts"
import { formatAddress } from "../../kernel/homes.ts"
import { DefaultTidyTimeLimitSeconds, DefaultTidyTurnLimit, positiveWhole } from "../../settings/checks.ts"

/**
 * `/pi-context tidy`: a model pass over the homes. Pure parts: the pass's
 * instructions, which tool calls count as changes, and the plain-text report.
 */

export interface TidyLimits {
  readonly turns: number
  readonly timeMs: number
}

/** The pass's limits from the two settings; a value that is not a positive whole number gives the default. */
export const tidyLimitsOf = (turns: unknown, seconds: unknown): TidyLimits => ({
  turns: positiveWhole(turns) ?? DefaultTidyTurnLimit,
  timeMs: (positiveWhole(seconds) ?? DefaultTidyTimeLimitSeconds) * 1000
})

/** Why a pass was stopped at one of its limits, with the setting that moves it. */
export const describeTidyLimit = (limit: "turns" | "time", limits: TidyLimits): string =>
  limit === "turns"
    ? `it reached its limit of ${plural(limits.turns, "model turn")} (setting tidyTurnLimit); what it changed until then is kept and listed`
    : `it ran for its time limit of ${plural(Math.round(limits.timeMs / 1000), "second")} (setting tidyTimeLimitSeconds); what it changed until then is kept and listed`

/** The notes tools a tidy pass gets, and no others. */
export const TidyTools = [ToolName.notesList, ToolName.notesRead, ToolName.notesSearch, ToolName.notesWrite, ToolName.notesUpdate] as const
export type TidyTool = (typeof TidyTools)[number]

/** One change the pass made (or, in a dry run, would have made). */
export type TidyAction =
  | { readonly _tag: "Wrote"; readonly address: string }
  | { readonly _tag: "Edited"; readonly address: string; readonly edits: number }
  | { readonly _tag: "Moved"; readonly from: string; readonly to: string }
  | { readonly _tag: "Retired"; readonly address: string }

const canonical = (raw: string): string => {
  const parsed = parseAddress(raw)
  return parsed._tag === "Success" ? formatAddress(parsed.success) : raw
}

/** The change a write tool call asks for; undefined for a read or a call that changes nothing. */
export const actionOf = (tool: string, params: unknown): TidyAction | undefined => {
  if (typeof params !== "object" || params === null) return undefined
  const p = params as { readonly address?: unknown; readonly edits?: unknown; readonly rename_to?: unknown; readonly retire?: unknown }
  if (typeof p.address !== "string") return undefined
  const address = canonical(p.address)
  if (tool === ToolName.notesWrite) return { _tag: "Wrote", address }
  if (tool !== ToolName.notesUpdate) return undefined
  if (p.retire === true) return { _tag: "Retired", address }
  if (typeof p.rename_to === "string") return { _tag: "Moved", from: address, to: canonical(p.rename_to) }
  return { _tag: "Edited", address, edits: Array.isArray(p.edits) ? p.edits.length : 0 }
}

export const touchesUserHome = (action: TidyAction): boolean =>
  action._tag === "Moved" ? action.from.startsWith("@user/") || action.to.startsWith("@user/") : action.address.startsWith("@user/")

/** What the pass is asked to do; a dry run's write tools only record. */
export const tidyInstructions = (dryRun: boolean): string =>
  [
    "You tidy a person's notes for an AI coding agent. The notes live in five homes: this session (no prefix), @project, @user, @agent and @model.",
    "Work only with the notes tools. Start with notes_list, then read what you need.",
    "1. Merge genuine duplicates: write the merged note with notes_write, then retire the others with notes_update { \"retire\": true }.",
    "2. Move misfiled notes to the home they belong in with notes_update { \"rename_to\": ... } (a project fact to @project, a user preference to @user).",
    "3. Keep each home's MAP.md current: every durable note listed once, no entry pointing to a missing note.",
    "4. Retire notes that are plainly obsolete. When unsure, leave a note as it is.",
    "Never reword the user's own words in @user: move or retire a @user note only when it is clearly a duplicate or misfiled, and say so.",
    dryRun
      ? "This is a DRY RUN: your write calls are recorded, not applied. Make the calls you would make, as if they were applied."
      : "Your changes are committed as note versions before and after this pass, so a person can review and undo them.",
    "When done, reply with a short plain-text account: what you merged, moved and retired, and why, one line each."
  ].join("\n")

export const tidyPrompt = "Tidy the notes now."

export interface TidyReportInput {
  readonly dryRun: boolean
  readonly actions: ReadonlyArray<TidyAction>
  /** The model's own account of the pass. */
  readonly account: string
  readonly before: string | undefined
  readonly after: string | undefined
  /** Write calls the store refused (the model saw the error). */
  readonly refused: number
}

const describeAction = (action: TidyAction): string => {
  switch (action._tag) {
    case "Wrote":
      return `wrote ${shownName(action.address)}`
    case "Edited":
      return `edited ${shownName(action.address)} (${plural(action.edits, "edit")})`
    case "Moved":
      return `moved ${action.from} to ${action.to}`
    case "Retired":
      return `retired ${shownName(action.address)}`
  }
}

/** The plain-text report: every change, the @user changes called out, the model's reasons, and how to undo. */
export const renderTidyReport = (input: TidyReportInput): string => {
  const verb = input.dryRun ? "would have made" : "made"
  const lines = [
    input.dryRun ? "pi-context tidy (dry run: nothing was changed)" : "pi-context tidy",
    input.actions.length === 0 ? "No changes." : `Changes it ${verb} (${input.actions.length}):`,
    ...input.actions.map((action) => `  - ${describeAction(action)}`)
  ]
  const userChanges = input.actions.filter(touchesUserHome)
  if (userChanges.length > 0) {
    lines.push(
      `Your own @user notes: it ${verb} ${plural(userChanges.length, "change")} there:`,
      ...userChanges.map((action) => `  - ${describeAction(action)}`)
    )
  }
  if (input.refused > 0) lines.push(`${input.refused} write ${input.refused === 1 ? "call was" : "calls were"} refused by the notes store and changed nothing.`)
  lines.push("Why (the model's account):", ...(input.account.trim() === "" ? ["  (no account given)"] : input.account.trim().split("\n").map((line) => `  ${line}`)))
  if (!input.dryRun && input.before !== undefined && input.after !== undefined) {
    lines.push(
      `Review: /pi-context notes diff ${input.after} (or git show ${input.after} in the notes root).`,
      `Undo: /pi-context notes restore all ${input.before} brings every home back to its state before the tidy.`
    )
  }
  return lines.join("\n")
}
