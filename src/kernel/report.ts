import type { WindowFacts } from "./facts.ts"

/** A report the user asked for: the windows view's facts, the notes overview, or a titled text. */
export type ReportData =
  | {
    readonly kind: "windows"
    readonly windows: ReadonlyArray<WindowFacts>
    readonly scale: BarScale | undefined
    /** Epoch ms the view was asked for, so the open window's time runs to then (absent in entries written before it was kept). */
    readonly shownAt?: number | undefined
  }
  | { readonly kind: "notes"; readonly overview: NotesOverview }
  /** A `warning` text is drawn and notified as one (absent: information). */
  | { readonly kind: "text"; readonly title: string; readonly text: string; readonly level?: "warning" | undefined }

/** A text report whose first line is its title (as doctor and trace write them). */
export const textReport = (text: string): ReportData => {
  const [title = "", ...rest] = text.split("\n")
  return { kind: "text", title, text: rest.join("\n") }
}

/** How urgent the status line is: past the guidance line, past the warning line, or neither (or unknown). */
export type StatusTone = "normal" | "guidance" | "warning"

/** The window size and the lines (tokens left) the bar is drawn against; absent without a model. */
export interface BarScale {
  readonly contextWindow: number
  readonly warningLine: number
  readonly hardLine: number
}

/**
 * `/pi-context notes` at a glance, as a report holds it: the notes root, the count
 * per home, and the newest notes with title, size and age.
 */
export interface NotesOverview {
  readonly root: string
  /** Each home with its note count, or the reason it could not be read. */
  readonly homes: ReadonlyArray<{ readonly home: string; readonly count: number | null; readonly reason?: string }>
  readonly rows: ReadonlyArray<{ readonly address: string; readonly title: string; readonly size: string; readonly age: string }>
  /** Notes left out of the list (it shows the newest). */
  readonly more: number
  /** Notes sync's conflict copies not resolved yet, each beside its note (absent in reports written before sync). */
  readonly conflicts?: ReadonlyArray<string> | undefined
  /** Whether the note versions are there to browse, so the overview offers their commands (absent in older reports: offered). */
  readonly versions?: boolean | undefined
}

/** How a report is drawn: lines of toned segments, which the TUI colours and print/RPC modes join as plain text. */
export type Tone = "accent" | "dim" | "muted" | "success" | "warning" | "error" | "text"

export interface Segment {
  readonly text: string
  readonly tone: Tone
}

export type ViewLine = ReadonlyArray<Segment>

/** A run of text in one tone. */
export const seg = (text: string, tone: Tone = "text"): Segment => ({ text, tone })

/** Code points of a line; the view uses only single-width characters, so this is its width on screen. */
const lineWidth = (line: ViewLine): number => line.reduce((sum, s) => sum + Array.from(s.text).length, 0)

/** Cuts a line to `width` columns, ending in "…" when cut. */
export const fitLine = (line: ViewLine, width: number): ViewLine => {
  if (lineWidth(line) <= width) return line
  const out: Array<Segment> = []
  let room = Math.max(1, width) - 1
  for (const s of line) {
    if (room <= 0) break
    const points = Array.from(s.text)
    out.push(seg(points.slice(0, room).join(""), s.tone))
    room -= Math.min(room, points.length)
  }
  out.push(seg("…", "dim"))
  return out
}

export const plainText = (lines: ReadonlyArray<ViewLine>): string => lines.map((line) => line.map((s) => s.text).join("")).join("\n")
