import type { WindowEnd, ResetSource } from "../kernel/facts.ts"
import type { ResetShown } from "../kernel/resetData.ts"
import { formatTokens } from "../kernel/tokenCount.ts"
import { plural } from "../kernel/plural.ts"

/** How each kind of reset reads, in the chat, the windows view and notices. */
export const sourceLabel = (source: ResetSource | "unknown"): string => {
  switch (source) {
    case "tool":
      return "the model called wipe_memory"
    case "command":
      return "/wipe-memory"
    case "hard-line":
      return "hard line reached"
    case "close-out":
      return "close-out after the hard line"
    case "overflow":
      return "provider overflow"
    case "unknown":
      return "reset"
  }
}

/** A window's end, short, for tables: `wipe_memory`, `hard line`, `close-out`, `overflow`, `/wipe-memory`, `open`. */
export const endLabel = (end: WindowEnd): string => {
  if (end._tag === "Open") return "open"
  switch (end.source) {
    case "tool":
      return "wipe_memory"
    case "command":
      return "/wipe-memory"
    case "hard-line":
      return "hard line"
    case "close-out":
      return "close-out"
    case "overflow":
      return "overflow"
    case "unknown":
      return "reset"
  }
}

/** A share of the window, never clamped: a window that grew past its size (pi-context off, an overflow) shows as more than 100%. */
export const percentOf = (tokens: number | null, contextWindow: number | null): number | null =>
  tokens === null || contextWindow === null || !(contextWindow > 0) ? null : Math.round((tokens / contextWindow) * 100)

const fill = (shown: ResetShown): string => {
  const percent = percentOf(shown.peakTokens, shown.contextWindow)
  return percent === null || shown.peakTokens === null
    ? `w${shown.ordinal - 1} had no measured usage`
    : `w${shown.ordinal - 1} peaked at ${percent}% (${formatTokens(shown.peakTokens)} tokens)`
}

/** No checkpoint, and what the model had been told before it: guided and warned, it ignored both. */
const noCheckpoint = (shown: ResetShown): string => {
  const told = [shown.guided === true ? "guided" : undefined, shown.warned === true ? "warned" : undefined].filter((word) => word !== undefined)
  return told.length === 0 ? "no checkpoint" : `no checkpoint, though ${told.join(" and ")}`
}

/**
 * The divider's phrases laid out in `width` columns: whole phrases per line, joined by " · ", framed by "──"; a
 * narrow terminal breaks the divider between phrases, never inside one (a phrase wider than the line gets one
 * of its own).
 */
export const dividerLines = (phrases: ReadonlyArray<string>, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const phrase of phrases) {
    const next = line === "" ? `── ${phrase}` : `${line} · ${phrase}`
    if (line !== "" && next.length + 3 > width) {
      lines.push(line)
      line = `   ${phrase}`
    } else line = next
  }
  lines.push(`${line} ──`)
  return lines
}

/** The reset's chat entry: its phrases (one divider line when the terminal is wide enough), then the details on expand. */
export const resetChatLines = (input: {
  readonly source: ResetSource | "unknown"
  readonly shown: ResetShown | undefined
}): { readonly headline: string; readonly phrases: ReadonlyArray<string>; readonly details: ReadonlyArray<string> } => {
  const { shown } = input
  const headlineOf = (phrases: ReadonlyArray<string>) => dividerLines(phrases, Number.POSITIVE_INFINITY)[0]!
  if (shown === undefined) {
    const phrases = [`context reset (${sourceLabel(input.source)})`, "a new window starts from the notes"]
    return {
      headline: headlineOf(phrases),
      phrases,
      details: ["The model's earlier conversation stays in this session; it can read it back with the history tools."]
    }
  }
  const phrases = [
    `context reset: ${sourceLabel(input.source)}`,
    fill(shown),
    `w${shown.ordinal} starts from ${plural(shown.notesIndexed, "note")}`,
    shown.checkpointed ? "checkpointed" : noCheckpoint(shown)
  ]
  return {
    headline: headlineOf(phrases),
    phrases,
    details: [
      shown.checkpointed
        ? `The model wrote or updated notes in w${shown.ordinal - 1} before it ended.`
        : `No note of this session was written in w${shown.ordinal - 1} before it ended.`,
      "The model's earlier conversation stays in this session; it can read it back with the history tools.",
      "/pi-context windows lists every window of this branch."
    ]
  }
}

/**
 * Said when a session with resets opens: that its windows ended in resets,
 * not compactions. (Sessions from before resets hid Pi's context with edits
 * ended each window with a compaction entry, so Pi's own status line reads
 * "Session compacted N times" for them; this notice, shown after it, says
 * what they were.)
 */
export const resumeNotice = (ordinal: number): string => {
  const resets = ordinal - 1
  return `pi-context: this branch had ${resets} context ${resets === 1 ? "reset" : "resets"}, not compactions: nothing was summarised. ` +
    `The model is in window w${ordinal}; /pi-context windows lists them.`
}
