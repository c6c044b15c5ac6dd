import type { ResetSource } from "../kernel/facts.ts"
import { CommandName } from "../kernel/protocol.ts"
import type { ReportData } from "../kernel/report.ts"
import { sourceLabel } from "../window/resetShown.ts"

/**
 * What the reset room says to the user: the reset's notice, /wipe-memory's
 * answers, why Pi's compaction and /tree summaries are refused, and what
 * start-up or a request finds wrong with a boundary. The room decides; the
 * sentences are here.
 */

/** The reset's notice: what kind of reset it was and the new window's w-number (the chat entry holds the rest). */
export const resetNotice = (ordinal: number, source: ResetSource) =>
  `pi-context: context reset (${sourceLabel(source)}) · w${ordinal} starts from your notes`

/** Said when `/wipe-memory` finds a window nothing happened in since it started from the notes. */
export const untouchedNotice = (ordinal: number) =>
  `pi-context: w${ordinal} started from your notes and nothing has happened in it since, so /${CommandName.wipeMemory} has nothing to end. ` +
  `Your next prompt goes to w${ordinal}.`

export const waitingNotice =
  `pi-context: /${CommandName.wipeMemory} will reset when idle: the current run finishes first, then this window ends (no model call); ` +
  `a follow-up you queue now runs in the new window.`

/**
 * The /compact notice, fitted to the branch: erased history exists only on a
 * branch with a reset, and there, while off, only the user ends the window.
 */
export const compactionNotice = (branchHasReset: boolean, enabled: boolean, lead = "native compaction is cancelled"): string =>
  branchHasReset
    ? `pi-context: ${lead}, because it would summarise erased history back into this window. ` +
      (enabled
        ? `Run /${CommandName.wipeMemory} to start a fresh window from your notes.`
        : `pi-context is off, so nothing resets this window by itself: run /${CommandName.wipeMemory} to start a fresh window ` +
          `from your notes, or /${CommandName.piContext} on for reminders and automatic resets.`)
    : `pi-context: ${lead}: pi-context owns this context window, and resets it from the model's notes ` +
      `instead of summarising it. Run /${CommandName.wipeMemory} to start a fresh window now, ` +
      `or /${CommandName.piContext} off to let Pi compact this branch.`

/**
 * The /compact notice after Pi refused it before asking pi-context (Pi checks whether there is anything to
 * compact first, and draws its red "Nothing to compact" before extensions hear of the failure): that reason
 * misleads, since native compaction would not run here at any size.
 */
export const compactionRefusedNotice = (branchHasReset: boolean, enabled: boolean, piMessage: string): string =>
  compactionNotice(branchHasReset, enabled, `Pi says "${piMessage.replace(/^Compaction failed: /, "")}", but that is not why /compact did nothing: native compaction never runs here`)

/** Why a `/tree` summary was left empty. */
export const treeNotice: ReportData = {
  kind: "text",
  level: "warning",
  title: "pi-context: the /tree summary was left empty",
  text: "A branch on either side contains a context reset, and a summary would carry erased history across it. " +
    "Use the history tools to look back instead."
}

/** A reset window without its boot: the request is stopped rather than send erased history. */
export const missingBootNotice = (ordinal: number) =>
  `pi-context: window w${ordinal} has no boot, so the request was stopped instead of sending erased history. ` +
  `Run /${CommandName.wipeMemory} to start a fresh window from your notes.`

/** A boundary start-up found incomplete and cannot repair without forging a boot. */
export const unrepairableNotice = (ordinal: number, reason: string) =>
  `pi-context: the reset boundary of window w${ordinal} is incomplete and cannot be repaired safely: ` +
  `${reason}. Run /${CommandName.wipeMemory} to start a fresh window.`

/** pi-context's own entries on the branch that do not decode: ignored, and told once. */
export const unreadableNotice = (count: number, firstReason: string) =>
  `pi-context: ignored ${count} of its entries on this branch that could not be read ` +
  `(${firstReason}${count > 1 ? ", …" : ""}). Nothing else is affected; /${CommandName.piContext} doctor has details.`

/** The boot of a new window could not be built: nothing was written. */
export const bootFailedNotice = (reason: string) =>
  `pi-context: could not build the boot for a new window, so no reset was written (${reason}). ` +
  `Your notes are untouched; try /${CommandName.wipeMemory}.`
