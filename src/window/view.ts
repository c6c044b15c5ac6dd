import { shownName } from "../kernel/names.ts"
import type { ChangeKind, WindowFacts, WindowNoteChange, WindowNoteChanges } from "../kernel/facts.ts"
import { endLabel, percentOf } from "./resetShown.ts"
import { formatTokens } from "../kernel/tokenCount.ts"
import { plural } from "../kernel/plural.ts"
import { type BarScale, fitLine, seg, type Segment, type Tone, type ViewLine } from "../kernel/report.ts"

const kindMark: Readonly<Record<ChangeKind, string>> = { added: "+", modified: "~", deleted: "−" }

/** `+2 ~1 −0`, as the commit messages tally it. */
export const changeTally = (changes: WindowNoteChanges): string => `+${changes.added} ~${changes.modified} −${changes.deleted}`

/** `+plan.md`, `~@project/decisions.md`. */
export const markedAddress = (change: WindowNoteChange): string => `${kindMark[change.kind]}${shownName(change.address)}`

/**
 * The windows view (`/pi-context windows`): one block per window of the
 * branch, as styled segments, so the TUI colours them and print/RPC modes
 * join them as plain text. Pure and Effect-free: the TUI's entry renderer
 * draws it at whatever width the chat has.
 */

export interface ViewOptions {
  readonly width: number
  readonly scale: BarScale | undefined
  /** How a start time reads (local HH:MM in Pi, fixed in tests). */
  readonly clock: (epochMs: number) => string
  /** Each committed note by name under its window's tally (Pi's expanded view, and plain text). */
  readonly expanded?: boolean
  /** Epoch ms the view was asked for: the open window has been open until then, not until its last entry. */
  readonly now?: number | undefined
}

export const formatDuration = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m`
  const hours = Math.floor(minutes / 60)
  return `${hours}h ${String(minutes % 60).padStart(2, "0")}m`
}

/** Where a line (tokens left) falls on a bar of `cells` cells of used tokens. */
const cellOf = (line: number, scale: BarScale, cells: number) =>
  Math.min(cells - 1, Math.max(0, Math.round(((scale.contextWindow - line) / scale.contextWindow) * cells)))

/** Peak usage as a bar against the warning (`|`) and hard (`!`) lines. */
export const usageBar = (peakTokens: number | null, scale: BarScale, cells: number): ViewLine => {
  const filled = peakTokens === null ? 0 : Math.min(cells, Math.round((peakTokens / scale.contextWindow) * cells))
  const warningCell = cellOf(scale.warningLine, scale, cells)
  const hardCell = cellOf(scale.hardLine, scale, cells)
  const left = peakTokens === null ? null : scale.contextWindow - peakTokens
  const tone: Tone = left === null ? "dim" : left <= scale.hardLine ? "error" : left <= scale.warningLine ? "warning" : "success"
  const out: Array<Segment> = [seg("[", "dim")]
  for (let i = 0; i < cells; i++) {
    const mark = i === hardCell ? "!" : i === warningCell ? "|" : undefined
    if (mark !== undefined) out.push(seg(mark, i < filled ? tone : "muted"))
    else out.push(i < filled ? seg("█", tone) : seg("·", "dim"))
  }
  out.push(seg("]", "dim"))
  // Merge runs of one tone, so the TUI colours a few segments, not one per cell.
  return out.reduce<Array<Segment>>((merged, s) => {
    const last = merged[merged.length - 1]
    if (last !== undefined && last.tone === s.tone) merged[merged.length - 1] = seg(last.text + s.text, s.tone)
    else merged.push(s)
    return merged
  }, [])
}

const endTone = (facts: WindowFacts): Tone => {
  if (facts.end._tag === "Open") return "accent"
  switch (facts.end.source) {
    case "hard-line":
    case "close-out":
    case "overflow":
      return "warning"
    default:
      return "success"
  }
}

const windowBlock = (facts: WindowFacts, options: ViewOptions): ReadonlyArray<ViewLine> => {
  const started = facts.startedAt === undefined ? "start unknown" : `began ${options.clock(facts.startedAt)}`
  const until = facts.end._tag === "Open" && options.now !== undefined ? Math.max(options.now, facts.lastActivityAt ?? options.now) : facts.lastActivityAt
  const lasted = facts.startedAt === undefined || until === undefined
    ? ""
    : ` · ${facts.end._tag === "Open" ? "open for" : "lasted"} ${formatDuration(until - facts.startedAt)}`
  const head: ViewLine = [
    seg(`w${facts.ordinal}`.padEnd(4), "accent"),
    seg(`${started}${lasted} · ${plural(facts.turns, "turn")} · `, "text"),
    seg(facts.end._tag === "Open" ? "open (current)" : `ended: ${endLabel(facts.end)}`, endTone(facts))
  ]
  const percent = percentOf(facts.peakTokens, options.scale?.contextWindow ?? null)
  const peakText = facts.peakTokens === null
    ? "no reply measured"
    : `${percent === null ? "" : `${percent}% · `}${formatTokens(facts.peakTokens)} tokens`
  const cells = Math.max(10, Math.min(60, options.width - 40))
  const peak: ViewLine = [
    seg("    peak ", "muted"),
    ...(options.scale === undefined ? [] : [...usageBar(facts.peakTokens, options.scale, cells), seg(" ")]),
    seg(peakText, "text")
  ]
  const notes: ViewLine = [
    seg("    notes ", "muted"),
    seg(facts.notesWritten.length === 0 ? "none written" : facts.notesWritten.join(", "), facts.notesWritten.length === 0 ? "dim" : "text"),
    seg(" · boot ", "muted"),
    seg(facts.bootTokens === null ? "none" : `${formatTokens(facts.bootTokens)} tokens`, "text"),
    ...pickupSegments(facts)
  ]
  return [head, peak, notes, ...committedLines(facts, options.expanded === true)]
}

/** How a window that began at a reset picked up: from its notes or not, and the files it read again. */
const pickupSegments = (facts: WindowFacts): ViewLine => {
  const pickup = facts.pickup
  if (pickup === undefined) return []
  return [
    seg(" · ", "muted"),
    seg(pickup.readNotes ? "read its notes" : "did not read its notes", pickup.readNotes ? "text" : "warning"),
    ...(pickup.filesReread === 0 ? [] : [seg(` · re-read ${plural(pickup.filesReread, "file")}`, "text")])
  ]
}

/** Notes named per window; a window that changed more says how many more. */
export const NotesNamed = 8

const changeTone: Readonly<Record<WindowNoteChange["kind"], Tone>> = { added: "success", modified: "text", deleted: "warning" }

/** The window's notes-history commits: the tally, and each note when expanded; nothing without a history. */
const committedLines = (facts: WindowFacts, expanded: boolean): ReadonlyArray<ViewLine> => {
  const changes = facts.noteChanges
  if (changes === undefined) return []
  const label = seg("    committed notes: ", "muted")
  if (changes.commits.length === 0) {
    const state = changes.pending === true
      ? "being committed"
      : changes.waiting !== undefined
      ? `not yet: the repository is ${changes.waiting}`
      : facts.end._tag === "Open"
      ? "at the window's end"
      : "none"
    return [[label, seg(state, "dim")]]
  }
  const lines: Array<ViewLine> = [[label, seg(changeTally(changes), "text"), ...(changes.pending === true ? [seg(", more being committed", "dim")] : [])]]
  if (!expanded) return lines
  for (const change of changes.notes.slice(0, NotesNamed)) lines.push([seg("      "), seg(markedAddress(change), changeTone[change.kind])])
  if (changes.notes.length > NotesNamed) lines.push([seg(`      … and ${changes.notes.length - NotesNamed} more`, "dim")])
  return lines
}

/** The newest windows the view draws; the rest are named, not drawn. */
export const ViewWindows = 20

/** The whole view: a header, then one block per window, oldest first, every line within `width`. */
export const windowsView = (windows: ReadonlyArray<WindowFacts>, options: ViewOptions): ReadonlyArray<ViewLine> => {
  const current = windows[windows.length - 1]
  const header: ViewLine = [
    seg("pi-context windows", "accent"),
    seg(` · ${windows.length} on this branch${current === undefined ? "" : `, current w${current.ordinal}`}`, "text")
  ]
  const legend: ReadonlyArray<ViewLine> = options.scale === undefined
    ? []
    : [[seg(`peak usage of ${formatTokens(options.scale.contextWindow)} tokens · | warning line · ! hard line`, "dim")]]
  const lines: Array<ViewLine> = [header, ...legend]
  const hidden = Math.max(0, windows.length - ViewWindows)
  if (hidden > 0) lines.push([seg(`${hidden} earlier ${hidden === 1 ? "window" : "windows"} not shown; history_windows lists them all.`, "dim")])
  for (const facts of windows.slice(hidden)) lines.push(...windowBlock(facts, options))
  return lines.map((line) => fitLine(line, options.width))
}

/** The same facts for the model (`history_windows`), beside the opaque id the history tools take. */
export const windowFactsSummary = (facts: WindowFacts): string => {
  const end = facts.end._tag === "Open" ? "open" : `ended by ${endLabel(facts.end)}`
  const peak = facts.peakTokens === null ? "peak unknown" : `peak ${formatTokens(facts.peakTokens)} tokens`
  const notes = facts.notesWritten.length === 0 ? "no notes written" : `notes written: ${facts.notesWritten.join(", ")}`
  const boot = facts.bootTokens === null ? "no boot" : `boot ${formatTokens(facts.bootTokens)} tokens`
  return `w${facts.ordinal} · ${plural(facts.turns, "turn")} · ${peak} · ${end} · ${notes} · ${boot}${committedSummary(facts)}`
}

const committedSummary = (facts: WindowFacts): string => {
  const changes = facts.noteChanges
  if (changes === undefined) return ""
  if (changes.commits.length === 0) {
    return changes.pending === true
      ? " · notes being committed"
      : changes.waiting !== undefined
      ? ` · notes not committed yet (the repository is ${changes.waiting})`
      : facts.end._tag === "Open"
      ? " · notes committed at the window's end"
      : " · no notes committed"
  }
  const named = changes.notes.slice(0, NotesNamed).map(markedAddress).join(", ")
  const more = changes.notes.length > NotesNamed ? `, and ${changes.notes.length - NotesNamed} more` : ""
  return ` · notes committed ${changeTally(changes)}${named === "" ? "" : ` (${named}${more})`}${changes.pending === true ? ", more being committed" : ""}`
}
