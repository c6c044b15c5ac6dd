import type { BranchEntry } from "./entries.ts"
import { CustomType, ToolName } from "./protocol.ts"
import { type Lines, renderNotice, type ResolvedPolicy, type Sourced } from "./thresholds.ts"
import { tokensLeft, usedPercent, type WindowUsage } from "./window/usage.ts"

/**
 * Budget decisions for the active window: which reminders to stage, whether
 * the hard line is due, and how many tokens are left before each line. Pure:
 * durable reminder entries on the active branch are the authority on what was
 * already delivered, the caller's staged drafts on what is pending.
 */

export type ReminderKind = "guidance" | "warning"

export interface ReminderFlags {
  readonly guidance: boolean
  readonly warning: boolean
}

export const noReminders: ReminderFlags = { guidance: false, warning: false }

/** A hidden reminder ready for the `turn_end` composer: a `custom_message` draft (Pi skips a draft without its `type`). */
export interface ReminderDraft {
  readonly type: "custom_message"
  readonly customType: typeof CustomType.guidance | typeof CustomType.warning
  readonly content: string
  readonly display: false
  readonly details: { readonly windowId: string }
}

export const customTypeOf = (kind: ReminderKind): ReminderDraft["customType"] =>
  kind === "guidance" ? CustomType.guidance : CustomType.warning

/**
 * Reminders committed in window `windowId` on this branch. Walks back from the
 * leaf and stops at the window's marker, so it costs the window, not the
 * session; a sibling branch's reminders are not on this branch and never count.
 */
export const committedReminders = (branch: ReadonlyArray<BranchEntry>, windowId: string): ReminderFlags => {
  let guidance = false
  let warning = false
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry._tag === "Marker") break
    if (entry._tag === "Reminder" && entry.windowId === windowId) {
      if (entry.kind === "guidance") guidance = true
      else warning = true
      if (guidance && warning) break
    }
  }
  return { guidance, warning }
}

export interface Remaining {
  /** Tokens left before the final warning line, 0 once it is crossed; null when unknown. */
  readonly beforeWarning: number | null
  /** Tokens left before the hard line, 0 once it is crossed; null when unknown. */
  readonly beforeHard: number | null
}

export const remainingBefore = (usage: WindowUsage | undefined, lines: Lines): Remaining => {
  const left = tokensLeft(usage)
  return left === null
    ? { beforeWarning: null, beforeHard: null }
    : { beforeWarning: Math.max(0, left - lines.warning.value), beforeHard: Math.max(0, left - lines.hard.value) }
}

export interface BudgetDecision {
  readonly left: number | null
  /** Reminders to stage now, in commit order. */
  readonly stage: ReadonlyArray<ReminderKind>
  readonly hardLineDue: boolean
}

/**
 * Each reminder fires once per window: not if committed (durable) or already
 * staged (pending). When a single step jumps past both lines, only the warning
 * is staged: the early guidance has nothing left to add.
 */
export const decide = (input: {
  readonly usage: WindowUsage | undefined
  readonly lines: Lines
  readonly automaticReset: boolean
  readonly committed: ReminderFlags
  readonly staged: ReminderFlags
}): BudgetDecision => {
  const left = tokensLeft(input.usage)
  if (left === null) return { left, stage: [], hardLineDue: false }
  const has = (kind: ReminderKind) => input.committed[kind] || input.staged[kind]
  const stage: Array<ReminderKind> = []
  const warningDue = left <= input.lines.warning.value && !has("warning")
  if (left <= input.lines.guidance.value && !has("guidance") && !has("warning") && !warningDue) stage.push("guidance")
  if (warningDue) stage.push("warning")
  return { left, stage, hardLineDue: input.automaticReset && left <= input.lines.hard.value }
}

export const formatTokens = (tokens: number): string => Math.max(0, Math.round(tokens)).toLocaleString("en-US")

/**
 * Tokens before the window's end as the model is told it: the hard line when
 * pi-context resets by itself, the full window otherwise (no line resets it).
 */
const beforeEnd = (left: number, lines: Lines, automaticReset: boolean): number =>
  automaticReset ? left - lines.hard.value : left

/** The model-facing reminder text, with the numbers frozen at the crossing. */
export const reminderText = (kind: ReminderKind, left: number, lines: Lines, automaticReset: boolean): string => {
  const beforeHard = formatTokens(beforeEnd(left, lines, automaticReset))
  const end = automaticReset ? "before pi-context resets this window automatically" : "before this window is full"
  const save = `update your session MAP and write a checkpoint note with ${ToolName.notesWrite} (or ${ToolName.notesUpdate} for an existing note): ` +
    "current state, decisions, open threads and the next step"
  if (kind === "guidance") {
    return `[pi-context] Context budget: about ${formatTokens(left - lines.warning.value)} tokens remain in this window ` +
      `before the final warning, ${beforeHard} ${end}. Use this room to secure your work: ${save}. ` +
      `Once your notes are current, call ${ToolName.wipeMemory} to continue in a fresh window that starts from them.`
  }
  return `[pi-context] Final context warning: about ${beforeHard} tokens remain ${end}. ` +
    `Finish the step you are on, then ${save}, and call ${ToolName.wipeMemory}. ` +
    "Whatever is not in your notes will not be in the next window."
}

export const reminderDraft = (kind: ReminderKind, windowId: string, content: string): ReminderDraft => ({
  type: "custom_message",
  customType: customTypeOf(kind),
  content,
  display: false,
  details: { windowId }
})

/**
 * The user-facing notice, shown once the reminder is committed, with the
 * numbers as they are when it is shown (`left`: tokens left now; null when
 * unknown), not as they were when the reminder was staged: by then a tool
 * turn may have taken the window past the next line.
 */
export const reminderNotice = (kind: ReminderKind, left: number | null, lines: Lines, automaticReset: boolean): string => {
  const sent = kind === "guidance" ? "the model was asked to write its notes" : "final warning sent to the model"
  if (left === null) return `pi-context: ${kind === "guidance" ? "context filling up" : "context almost full"}; ${sent}.`
  const leftText = `${formatTokens(left)} tokens left`
  if (automaticReset && left <= lines.hard.value) {
    return `pi-context: context past the hard line (${leftText}); ${sent}, and this window resets automatically after this turn.`
  }
  if (kind === "guidance" && left > lines.warning.value) {
    return `pi-context: ${formatTokens(left - lines.warning.value)} tokens before the final warning (${leftText}); ${sent}.`
  }
  return automaticReset
    ? `pi-context: context almost full (${formatTokens(left - lines.hard.value)} tokens before the hard line, ${leftText}); ${sent}.`
    : `pi-context: context almost full (${leftText} in the window; automatic reset is off); ${sent}.`
}

/** How urgent the status line is: past the guidance line, past the warning line, or neither (or unknown). */
export type StatusTone = "normal" | "guidance" | "warning"

export const statusTone = (usage: WindowUsage | undefined, lines: Lines): StatusTone => {
  const left = tokensLeft(usage)
  if (left === null) return "normal"
  return left <= lines.warning.value ? "warning" : left <= lines.guidance.value ? "guidance" : "normal"
}

/** The status line at a glance, e.g. `pi-context · 62% · w3`. */
export const statusText = (input: {
  readonly usage: WindowUsage | undefined
  readonly windowOrdinal: number
  readonly enabled?: boolean
}): string => {
  if (input.enabled === false) return "pi-context off"
  const percent = usedPercent(input.usage)
  return `pi-context · ${percent === null ? "?" : percent}% · w${input.windowOrdinal}`
}

const origin = (value: Sourced<unknown>): string => {
  const source = value.source === "pi" ? "set through Pi" : value.source
  return value.key === undefined ? source : `${source}: ${value.key}`
}

const onOff = (value: boolean) => (value ? "on" : "off")

/** The `/pi-context status` block: every line for the current model and where its value came from. */
export const statusReport = (policy: ResolvedPolicy, usage: WindowUsage | undefined): ReadonlyArray<string> => {
  const { lines } = policy
  const left = tokensLeft(usage)
  const remaining = remainingBefore(usage, lines)
  const model = policy.model === undefined
    ? "none selected"
    : `${policy.model.provider}/${policy.model.id} (${formatTokens(policy.model.contextWindow)}-token window)`
  const line = (name: string, value: Sourced<number>) => `${name}: ${formatTokens(value.value)} tokens left (${origin(value)})`
  return [
    `model: ${model}`,
    left === null || usage === undefined
      ? "usage: unknown until Pi can estimate it"
      : `usage: ${formatTokens(usage.contextWindow - left)} of ${formatTokens(usage.contextWindow)} tokens (${usedPercent(usage)}%), ${
        formatTokens(left)
      } left`,
    line("guidance line", lines.guidance),
    line("warning line", lines.warning),
    line("hard line", lines.hard),
    `reserve: ${formatTokens(policy.reserve.value)} tokens (${origin(policy.reserve)})`,
    `before warning: ${remaining.beforeWarning === null ? "unknown" : formatTokens(remaining.beforeWarning)}, ` +
    `before hard line: ${remaining.beforeHard === null ? "unknown" : formatTokens(remaining.beforeHard)}`,
    `automatic reset: ${onOff(policy.automaticReset.value)} (${origin(policy.automaticReset)})`,
    `enabled by default: ${onOff(policy.enabled.value)} (${origin(policy.enabled)})`,
    `trace level: ${policy.traceLevel.value} (${origin(policy.traceLevel)})`,
    `boot budget: ${formatTokens(policy.bootBudgetTokens.value)} tokens (${origin(policy.bootBudgetTokens)})`,
    `model overrides: ${policy.modelPatterns.length === 0 ? "none" : policy.modelPatterns.join(", ")}`,
    ...policy.notices.map((notice) => `notice: ${renderNotice(notice)}`)
  ]
}
