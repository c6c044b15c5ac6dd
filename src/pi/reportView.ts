import type { ExtensionAPI, ExtensionContext, Theme } from "@earendil-works/pi-coding-agent"
import { type Component, visibleWidth } from "@earendil-works/pi-tui"
import { notesOverviewView } from "../notes/overviewView.ts"
import { CustomType } from "../kernel/protocol.ts"
import { type BarScale, type NotesOverview, plainText, type ReportData, type ViewLine } from "../kernel/report.ts"
import type { WindowFacts } from "../kernel/facts.ts"
import { wrapLine } from "../kernel/wrap.ts"
import { windowsView } from "../window/view.ts"

/** What a `pi-context/report` entry holds (defined in the domain, where the subcommands build it). */
export { type ReportData, textReport } from "../kernel/report.ts"

const localClock = (epochMs: number): string => new Date(epochMs).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" })

/** Styled lines as a Pi TUI component: rebuilt for the width the chat gives it. */
export class LinesComponent implements Component {
  private readonly build: (width: number) => ReadonlyArray<ViewLine>
  private readonly theme: Theme
  constructor(build: (width: number) => ReadonlyArray<ViewLine>, theme: Theme) {
    this.build = build
    this.theme = theme
  }
  render(width: number): ReadonlyArray<string> {
    return this.build(width).map((line) => line.map((s) => this.theme.fg(s.tone, s.text)).join(""))
  }
  invalidate(): void {}
}

/**
 * A text report at the chat's width, measured in terminal columns (Pi's TUI
 * stops on a line wider than the terminal): long lines wrap, a path at its
 * separators, so nothing is cut off.
 */
const textLines = (title: string, text: string, titleTone: "accent" | "warning") => (width: number): ReadonlyArray<ViewLine> => [
  ...wrapLine(title, width, visibleWidth).map((line) => [{ text: line, tone: titleTone }]),
  ...text.split("\n").flatMap((line) => wrapLine(line, width, visibleWidth).map((piece) => [{ text: piece, tone: "text" as const }]))
]

/** The windows view as a component, for the chat and for render tests. */
export const windowsComponent = (
  windows: ReadonlyArray<WindowFacts>,
  scale: BarScale | undefined,
  theme: Theme,
  clock = localClock,
  expanded = false,
  now?: number
) => new LinesComponent((width) => windowsView(windows, { width, scale, clock, expanded, now }), theme)

/** The windows view as plain text, for print and RPC modes and for the model. */
export const windowsPlainText = (windows: ReadonlyArray<WindowFacts>, scale: BarScale | undefined, width = 100, clock = localClock, now?: number) =>
  plainText(windowsView(windows, { width, scale, clock, expanded: true, now }))

/** The notes overview as a component, for the chat and for render tests. */
export const notesComponent = (overview: NotesOverview, theme: Theme) => new LinesComponent((width) => notesOverviewView(overview, width), theme)

/** A report as plain text, for print and RPC modes. */
export const reportPlainText = (report: ReportData): string => {
  switch (report.kind) {
    case "windows":
      return windowsPlainText(report.windows, report.scale, 100, localClock, report.shownAt)
    case "notes":
      return plainText(notesOverviewView(report.overview, 120))
    case "text":
      return report.title === "" ? report.text : `${report.title}\n${report.text}`
  }
}

const isReport = (data: unknown): data is ReportData =>
  typeof data === "object" && data !== null &&
  (((data as { kind?: unknown }).kind === "windows" && Array.isArray((data as { windows?: unknown }).windows)) ||
    ((data as { kind?: unknown }).kind === "notes" && typeof (data as { overview?: unknown }).overview === "object") ||
    ((data as { kind?: unknown }).kind === "text" && typeof (data as { text?: unknown }).text === "string"))

export const registerReportRenderer = (pi: ExtensionAPI): void => {
  pi.registerEntryRenderer<unknown>(CustomType.report, (entry, options, theme) => {
    const data = entry.data
    if (!isReport(data)) return undefined
    switch (data.kind) {
      case "windows":
        return windowsComponent(data.windows, data.scale, theme, localClock, options.expanded, data.shownAt)
      case "notes":
        return notesComponent(data.overview, theme)
      case "text":
        return new LinesComponent(textLines(data.title, data.text, data.level === "warning" ? "warning" : "accent"), theme)
    }
  })
}

/**
 * Shows a report so that it stays: in Pi's TUI as a chat entry (a custom
 * entry, which never reaches the model; Pi keeps one info status, so a notice
 * would be replaced by the next one), elsewhere as a notice, in plain text.
 */
/** Pi's TUI draws pi-context's entries (reports, the reset divider) in the chat; print, RPC and SDK hosts do not. */
export const chatShowsEntries = (ctx: ExtensionContext): boolean => ctx.mode === "tui"

export const showReport = (pi: ExtensionAPI, ctx: ExtensionContext, report: ReportData): void => {
  if (chatShowsEntries(ctx)) {
    pi.appendEntry<ReportData>(CustomType.report, report)
    return
  }
  ctx.ui.notify(reportPlainText(report), report.kind === "text" && report.level === "warning" ? "warning" : "info")
}
