import type { NotesOverview } from "./notes/overviewView.ts"
import type { WindowFacts } from "./window/facts.ts"
import type { BarScale } from "./window/view.ts"

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
