import { SettingsKey } from "../kernel/protocol.ts"
import type { Sourced } from "./checks.ts"
import type { ThresholdNotice } from "./notice.ts"
import { formatTokens } from "../kernel/tokenCount.ts"

/**
 * The budget lines' arithmetic: the default lines for a window, the order a
 * set of lines must keep inside it, and how each line got its value. Pure.
 */

/** Lines in tokens remaining in the active window: guidance > warning > hard >= 0. */
export interface Lines {
  readonly guidance: Sourced<number>
  readonly warning: Sourced<number>
  readonly hard: Sourced<number>
}

/**
 * The default distance of the guidance and warning lines above the hard line:
 * a fixed runway on a large window, a share of the room above the hard line
 * on a small one (where the fixed runway would put the first prompt past the
 * lines). The shares were chosen from the eval's line sweep
 * (eval/results/sweep/sweep.md): on a 32k window, a warning with two fifths of
 * the room left cost the scripted runs about 0.68 of compaction's tokens per
 * solved task, against 0.81 at one fifth, for two more resets a task. The
 * share and the fixed runway meet at about 47,000 (warning) and 57,000
 * (guidance) tokens with Pi's default reserve: larger windows keep the fixed
 * runways, where a provider's prompt cache makes a long window cheap.
 */
export const Runway = {
  guidance: { tokens: 24576, share: 3 / 5 },
  warning: { tokens: 12288, share: 2 / 5 }
} as const

/** How a line got its value, as `/pi-context status` tells it. */
export type LineDerivation =
  /** As a setting gave it. */
  | { readonly _tag: "Set" }
  /** A set value moved into the window or into order; a notice says why. */
  | { readonly _tag: "Moved" }
  /** The hard line's default: Pi's reserve for the model's reply. */
  | { readonly _tag: "Reserve" }
  /** A default: the hard line plus a runway, fixed or (`share` of `room`) scaled to a small window. */
  | { readonly _tag: "Runway"; readonly runway: number; readonly scaled?: { readonly share: number; readonly room: number } }
  /** A default squeezed between a set line below it and the window. */
  | { readonly _tag: "Fitted" }

export interface LineDerivations {
  readonly guidance: LineDerivation
  readonly warning: LineDerivation
  readonly hard: LineDerivation
}

/** The default runway above `hard`: the fixed one, or its share of the room above the hard line when that is smaller. */
const runwayFor = (
  line: keyof typeof Runway,
  hard: number,
  window: number | undefined
): Extract<LineDerivation, { _tag: "Runway" }> => {
  const { tokens, share } = Runway[line]
  if (window === undefined) return { _tag: "Runway", runway: tokens }
  const room = window - hard
  const scaled = Math.floor(room * share)
  if (scaled >= tokens) return { _tag: "Runway", runway: tokens }
  // At least one token per line, the guidance above the warning: the lines stay distinct in any room.
  const least = line === "warning" ? 1 : runwayFor("warning", hard, window).runway + 1
  return { _tag: "Runway", runway: Math.max(least, scaled), scaled: { share, room } }
}

/**
 * Puts the lines in order inside the window: hard < warning < guidance < window.
 * Lower lines are the anchors (hard is the safety line), so a line that breaks
 * the order moves, first to its default distance above the hard line, and if
 * that does not fit either, to a point between the line below and the window.
 * `hardIsReserve`: the hard line is Pi's reserve, not a setting of its own.
 */
export const orderLines = (
  raw: Lines,
  window: number | undefined,
  hardIsReserve: boolean,
  notices: Array<ThresholdNotice>
): { readonly lines: Lines; readonly derivations: LineDerivations } => {
  const fits = (value: number, below: number) => value > below && (window === undefined || value < window)
  const keyOf = (line: Sourced<number>, name: string) => line.key ?? `${SettingsKey}.${name}`
  let hard = raw.hard
  let hardDerivation: LineDerivation = hardIsReserve ? { _tag: "Reserve" } : { _tag: "Set" }
  // Two tokens of room above the hard line keep the warning and guidance lines distinct.
  if (window !== undefined && hard.value > window - 3) {
    const used = Math.floor(window / 4)
    notices.push({
      key: hard.key ?? "compaction.reserveTokens",
      value: hard.value,
      used,
      reason: hard.value >= window
        ? `is at or beyond this model's ${formatTokens(window)}-token window`
        : `leaves no room for the other lines in this model's ${formatTokens(window)}-token window`,
      source: hard.file ?? hard.source
    })
    hard = { ...hard, value: used }
    hardDerivation = { _tag: "Moved" }
  }
  const place = (
    line: Sourced<number>,
    name: keyof typeof Runway,
    below: number,
    share: number
  ): readonly [Sourced<number>, LineDerivation] => {
    const runway = runwayFor(name, hard.value, window)
    const preferred = hard.value + runway.runway
    const isDefault = line.source === "default"
    // A default follows the final hard line; moving it is a consequence, not a settings problem.
    if (isDefault) line = { ...line, value: preferred }
    if (fits(line.value, below)) return [line, isDefault ? runway : { _tag: "Set" }]
    const fitsPreferred = fits(preferred, below)
    const used = fitsPreferred ? preferred : below + Math.max(1, Math.floor(((window ?? below + 2) - below) * share))
    if (isDefault) return [{ ...line, value: used }, { _tag: "Fitted" }]
    notices.push({
      key: keyOf(line, `${name}Line`),
      value: line.value,
      used,
      reason: line.value <= below
        ? `must be above the next lower line (${formatTokens(below)} tokens left)`
        : `is at or beyond this model's ${window === undefined ? "" : `${formatTokens(window)}-token `}window`,
      source: line.file ?? line.source
    })
    return [{ ...line, value: used }, { _tag: "Moved" }]
  }
  const [warning, warningDerivation] = place(raw.warning, "warning", hard.value, 1 / 3)
  const [guidance, guidanceDerivation] = place(raw.guidance, "guidance", warning.value, 1 / 2)
  return {
    lines: { guidance, warning, hard },
    derivations: { guidance: guidanceDerivation, warning: warningDerivation, hard: hardDerivation }
  }
}
