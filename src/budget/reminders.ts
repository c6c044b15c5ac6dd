import type { BranchEntry } from "../kernel/entries.ts"
import { CustomType, ToolName } from "../kernel/protocol.ts"
import { type LineDerivation, type Lines, renderNotice, type HomeList, type ResolvedPolicy, type Sourced, type ValueSource } from "../settings/policy.ts"
import { estimateNote, percentShown, tokensLeft } from "../window/usage.ts"
import { formatTokens } from "../kernel/tokenCount.ts"
import { type WindowUsage } from "../kernel/facts.ts"
import type { StatusTone } from "../kernel/report.ts"
import { type Home, homeLabel } from "../kernel/homes.ts"

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
 * Reminders committed in window `windowId` among `tail`: the window's entries
 * as Window.current gives them, so it costs the window, not the session; a
 * sibling branch's reminders are not on this branch and never count.
 */
export const committedReminders = (tail: ReadonlyArray<BranchEntry>, windowId: string): ReminderFlags => {
  let guidance = false
  let warning = false
  for (let i = tail.length - 1; i >= 0; i--) {
    const entry = tail[i]!
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
  /** Staged reminders to drop: a guidance not yet committed when the warning line is crossed is replaced, never delivered beside it. */
  readonly supersede: ReadonlyArray<ReminderKind>
  readonly hardLineDue: boolean
}

/**
 * Each reminder fires once per window: not if committed (durable) or already
 * staged (pending). When a single step jumps past both lines, only the warning
 * is staged: the early guidance has nothing left to add, and a staged one is superseded.
 */
export const decide = (input: {
  readonly usage: WindowUsage | undefined
  readonly lines: Lines
  readonly automaticReset: boolean
  readonly committed: ReminderFlags
  readonly staged: ReminderFlags
}): BudgetDecision => {
  const left = tokensLeft(input.usage)
  if (left === null) return { left, stage: [], supersede: [], hardLineDue: false }
  const has = (kind: ReminderKind) => input.committed[kind] || input.staged[kind]
  const stage: Array<ReminderKind> = []
  const warningDue = left <= input.lines.warning.value && !has("warning")
  if (left <= input.lines.guidance.value && !has("guidance") && !has("warning") && !warningDue) stage.push("guidance")
  if (warningDue) stage.push("warning")
  return {
    left,
    stage,
    supersede: warningDue && input.staged.guidance ? ["guidance"] : [],
    hardLineDue: input.automaticReset && left <= input.lines.hard.value
  }
}

/**
 * The figures of one reminder, computed once, when it is staged: the model's
 * text and the user's notice both show these, so they never disagree.
 */
export interface ReminderFigures {
  readonly kind: ReminderKind
  /** Tokens before the final warning line (0 once it is crossed). */
  readonly beforeWarning: number
  /** Tokens before the window's end as the model is told it: the hard line when pi-context resets by itself, else the full window. */
  readonly beforeEnd: number
  readonly automaticReset: boolean
  /** Past the hard line with automatic reset on: the window resets within this turn or its one close-out turn. */
  readonly pastHardLine: boolean
  readonly hardLine: number
}

export const reminderFigures = (kind: ReminderKind, left: number, lines: Lines, automaticReset: boolean): ReminderFigures => ({
  kind,
  beforeWarning: Math.max(0, left - lines.warning.value),
  beforeEnd: Math.max(0, automaticReset ? left - lines.hard.value : left),
  automaticReset,
  pastHardLine: automaticReset && left <= lines.hard.value,
  hardLine: lines.hard.value
})

const saveNotes = `update your session MAP and write a checkpoint note with ${ToolName.notesWrite} (or ${ToolName.notesUpdate} for an existing note): ` +
  "current state, decisions, open threads and the next step"

/**
 * The model-facing reminder text. It stays in the window's history, so its
 * figures say when they were true and `context_remaining` gives them now.
 */
export const reminderText = (figures: ReminderFigures): string => {
  const end = figures.automaticReset ? "before pi-context resets this window automatically" : "before this window is full"
  const now = `(${ToolName.contextRemaining} gives the current figures)`
  if (figures.pastHardLine) {
    return `[pi-context] Final context warning: when this warning was sent, the window was already past its hard line, ` +
      `which is at ${formatTokens(figures.hardLine)} tokens left, so pi-context resets it automatically when this turn ends, ` +
      `or after one close-out turn if you call tools ${now}. Now ${saveNotes}, and call ${ToolName.wipeMemory}. ` +
      "Whatever is not in your notes will not be in the next window."
  }
  if (figures.kind === "guidance") {
    return `[pi-context] Context budget: when this reminder was sent, about ${formatTokens(figures.beforeWarning)} tokens were left ` +
      `before the final warning and ${formatTokens(figures.beforeEnd)} ${end} ${now}. Use this room to secure your work: ${saveNotes}. ` +
      `Once your notes are current, call ${ToolName.wipeMemory} to continue in a fresh window that starts from them.`
  }
  return `[pi-context] Final context warning: when this warning was sent, about ${formatTokens(figures.beforeEnd)} tokens were left ${end} ` +
    `${now}. Finish the step you are on, then ${saveNotes}, and call ${ToolName.wipeMemory}. ` +
    "Whatever is not in your notes will not be in the next window."
}

/**
 * The close-out: carried, hidden, by the one request after a tool turn that
 * crossed the hard line. The window resets at the end of that turn whatever
 * the model does. Never written to the session, so it speaks of now.
 */
export const closeOutText = (hardLine: number): string =>
  `[pi-context] Close-out: this context window is past its hard line, which is at ${formatTokens(hardLine)} tokens left, so this is its last turn: ` +
  "after it, the window resets automatically and a fresh window starts from your notes. " +
  `Use this turn to write your checkpoint: update this session's MAP and write a note with the goal, the current state, the decisions made ` +
  `and the next step (${ToolName.notesWrite} or ${ToolName.notesUpdate}), then call ${ToolName.wipeMemory}. Do not start new work in this turn; ` +
  "anything not in your notes will only be reachable through the history tools."

export const reminderDraft = (kind: ReminderKind, windowId: string, content: string): ReminderDraft => ({
  type: "custom_message",
  customType: customTypeOf(kind),
  content,
  display: false,
  details: { windowId }
})

/**
 * The user-facing notice, shown once the reminder is committed, with the
 * figures the model was given (as they were when it was told, which a tool
 * turn since may have overtaken).
 */
export const reminderNotice = (figures: ReminderFigures): string => {
  if (figures.pastHardLine) {
    return `pi-context: context past the hard line, which is at ${formatTokens(figures.hardLine)} tokens left; final warning sent to the model, ` +
      "and this window resets automatically at the end of this turn or its close-out turn."
  }
  const end = (tokens: string) =>
    `${formatTokens(figures.beforeEnd)}${tokens} ${figures.automaticReset ? "before the automatic reset" : "left in the window (automatic reset is off)"}`
  if (figures.kind === "guidance") {
    return `pi-context: the model was asked to write its notes, with ${formatTokens(figures.beforeWarning)} tokens before the final warning and ${end("")}.`
  }
  return `pi-context: context almost full; final warning sent to the model with ${end(" tokens")}.`
}

/** A reminder's notice told after the reset that followed it in the same turn: the window it was sent in, and what it said. */
export const carriedReminderNotice = (figures: ReminderFigures, sentIn: number): string => {
  const then = `then w${sentIn} was reset in the same turn.`
  if (figures.pastHardLine) {
    return `pi-context: w${sentIn} went past the hard line, which is at ${formatTokens(figures.hardLine)} tokens left: the model got its final warning, ${then}`
  }
  const end = `${formatTokens(figures.beforeEnd)} tokens ${figures.automaticReset ? "before the automatic reset" : "left in the window"}`
  if (figures.kind === "guidance") {
    return `pi-context: the model was asked to write its notes, with ${formatTokens(figures.beforeWarning)} tokens before the final warning and ${end}; ${then}`
  }
  return `pi-context: context almost full; final warning sent to the model with ${end}; ${then}`
}

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
  return `pi-context · ${percentShown(input.usage)} · w${input.windowOrdinal}`
}

const origin = (value: Sourced<unknown>): string => {
  const source = value.source === "pi" ? setBy.pi! : value.source
  return value.key === undefined ? source : `${source}: ${value.key}`
}

const onOff = (value: boolean) => (value ? "on" : "off")

const setBy: Partial<Record<ValueSource, string>> = {
  global: "set in the global settings.json",
  project: "set in the project's .pi/settings.json",
  model: "set by a model override",
  pi: "set through Pi",
  injected: "set by the injected policy"
}

const setIn = (value: Sourced<unknown>): string => {
  const by = setBy[value.source] ?? `set (${value.source})`
  return value.key === undefined ? by : `${by}: ${value.key}`
}

const percent = (share: number) => `${Math.round(share * 100)}%`

/** How a line got its value, in words: "default: hard line + 6,246 = 40% of the 15,616 above it" (on a 32,000-token window). */
const derivationText = (derivation: LineDerivation, value: Sourced<number>, reserve: Sourced<number>): string => {
  switch (derivation._tag) {
    case "Set":
      return setIn(value)
    case "Moved":
      return `${value.source === "default" ? "default" : setIn(value)}; moved to fit this window, see the notice below`
    case "Reserve":
      return `default: Pi's reserve for the reply, ${reserve.source === "default" ? "at Pi's default" : setIn(reserve)}`
    case "Fitted":
      return "default, fitted between the line below and the window"
    case "Runway":
      return derivation.scaled === undefined
        ? `default: hard line + ${formatTokens(derivation.runway)}`
        : `default: hard line + ${formatTokens(derivation.runway)} = ${percent(derivation.scaled.share)} of the ${formatTokens(derivation.scaled.room)} above it`
  }
}

/**
 * A hard line set below Pi's reserve for the model's reply, with its fix, or
 * undefined. Near such a line a reply may not fit in the window, and Pi's own
 * compaction threshold (the reserve) is crossed first, on every request.
 */
export const hardLineBelowReserve = (policy: ResolvedPolicy): string | undefined => {
  const { hard } = policy.lines
  if (policy.derivations.hard._tag !== "Set" || hard.value >= policy.reserve.value) return undefined
  const reserve = formatTokens(policy.reserve.value)
  return `the hard line (${formatTokens(hard.value)} tokens left, ${setIn(hard)}) is below Pi's reserve for the model's reply ` +
    `(compaction.reserveTokens, ${reserve}), so near the hard line a reply may not fit in the window. ` +
    `Raise ${hard.key ?? "pi-context.hardLine"} to at least ${reserve}, or remove it to use the reserve, or lower compaction.reserveTokens`
}

const homesText = (homes: ReadonlyArray<Home>): string => (homes.length === 0 ? "none" : homes.map(homeLabel).join(", "))

/** A home list and where it came from: the one source that set it, or which source put each home on it. */
const homeListText = (list: HomeList): string => {
  const origins = list.origins.length === 1 ? origin(list.origins[0]!) : list.origins.map((part) => `${homesText(part.value)}: ${origin(part)}`).join("; ")
  return `${homesText(list.value)} (${origins})`
}

/** The `/pi-context status` block: every line for the current model and where its value came from. */
export const statusReport = (policy: ResolvedPolicy, usage: WindowUsage | undefined): ReadonlyArray<string> => {
  const { lines } = policy
  const left = tokensLeft(usage)
  const remaining = remainingBefore(usage, lines)
  const model = policy.model === undefined
    ? "none selected"
    : `${policy.model.provider}/${policy.model.id} (${formatTokens(policy.model.contextWindow)}-token window)`
  const line = (name: string, value: Sourced<number>, derivation: LineDerivation) =>
    `${name}: ${formatTokens(value.value)} tokens left (${derivationText(derivation, value, policy.reserve)})`
  return [
    `model: ${model}`,
    left === null || usage === undefined
      ? "usage: unknown until Pi can estimate it"
      : `usage: ${usage.estimated === true ? "~" : ""}${formatTokens(usage.contextWindow - left)} of ${formatTokens(usage.contextWindow)} tokens (${
        percentShown(usage)
      }), ${formatTokens(left)} left${usage.estimated === true ? ` (${estimateNote})` : ""}`,
    line("guidance line", lines.guidance, policy.derivations.guidance),
    line("warning line", lines.warning, policy.derivations.warning),
    line("hard line", lines.hard, policy.derivations.hard),
    `reserve: ${formatTokens(policy.reserve.value)} tokens (${origin(policy.reserve)})`,
    `before warning: ${remaining.beforeWarning === null ? "unknown" : formatTokens(remaining.beforeWarning)}, ` +
    `before hard line: ${remaining.beforeHard === null ? "unknown" : formatTokens(remaining.beforeHard)}`,
    `automatic reset: ${onOff(policy.automaticReset.value)} (${origin(policy.automaticReset)})`,
    // The setting, not the state (the first line says that): /pi-context on|off on a branch overrides it there.
    `enabled setting: ${onOff(policy.enabled.value)} (${origin(policy.enabled)}); /pi-context on|off overrides it on a branch`,
    `trace level: ${policy.traceLevel.value} (${origin(policy.traceLevel)})`,
    `boot budget: ${formatTokens(policy.bootBudgetTokens.value)} tokens (${origin(policy.bootBudgetTokens)})`,
    `model overrides: ${policy.modelPatterns.length === 0 ? "none" : policy.modelPatterns.join(", ")}`,
    `protected homes (the model adds notes, changes one only with your OK): ${homeListText(policy.protectedHomes)}`,
    `read-only homes (the model may not write): ${homeListText(policy.readOnlyHomes)}`,
    `after a reset: ${policy.afterReset.value === undefined ? "no instruction of yours" : JSON.stringify(policy.afterReset.value)} (${origin(policy.afterReset)})`,
    ...policy.notices.map((notice) => `notice: ${renderNotice(notice)}`)
  ]
}
