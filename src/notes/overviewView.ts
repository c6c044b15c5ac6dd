import { conflictsHeading } from "./syncConflictText.ts"
import { shownName, shownText } from "../kernel/names.ts"
import { plural } from "../kernel/plural.ts"
import { fitLine, type NotesOverview, type Segment, type ViewLine } from "../kernel/report.ts"

/**
 * `/pi-context notes` at a glance: the notes root, the count per home, and the
 * notes newest first with title, size and age. The sizes and ages are
 * formatted when the command runs (a report is a snapshot); this module only
 * lays them out for a width, and stays free of Effect for Pi's TUI.
 */

const seg = (text: string, tone: Segment["tone"] = "text"): Segment => ({ text, tone })

export const notesOverviewView = (overview: NotesOverview, width: number): ReadonlyArray<ViewLine> => {
  const total = overview.homes.reduce((sum, home) => sum + (home.count ?? 0), 0)
  const lines: Array<ViewLine> = [
    [seg("pi-context notes", "accent"), seg(` · ${plural(total, "note")} · root ${overview.root}`)],
    overview.homes.flatMap((home, i): Array<Segment> => [
      seg(i === 0 ? "  " : " · ", "dim"),
      seg(`${home.home} `, "muted"),
      home.count === null ? seg(`unreadable (${home.reason ?? "unknown"})`, "error") : seg(String(home.count), home.count === 0 ? "dim" : "text")
    ])
  ]
  const conflicts = overview.conflicts ?? []
  if (conflicts.length > 0) {
    lines.push([seg(`  ${conflictsHeading(conflicts.length)}`, "warning")], ...conflicts.map((conflict) => [seg(`    ${conflict}`, "warning")]))
  }
  if (overview.rows.length === 0) lines.push([seg("  No notes yet.", "dim")])
  // The address column takes what the widest address needs, leaving about 60 columns for size, age and title.
  const column = Math.min(Math.max(...overview.rows.map((row) => Array.from(shownName(row.address)).length), 8), Math.max(12, width - 60))
  for (const row of overview.rows) {
    const name = Array.from(shownName(row.address))
    const address = name.length > column ? `${name.slice(0, column - 1).join("")}…` : name.join("")
    lines.push([
      seg(`  ${address.padEnd(column)}  `, "accent"),
      seg(`${row.size.padStart(8)} · ${row.age.padEnd(11)}`, "muted"),
      seg(row.title === "" ? "" : ` ${shownText(row.title)}`)
    ])
  }
  if (overview.more > 0) lines.push([seg(`  … and ${overview.more} older; notes_list pages through them all.`, "dim")])
  lines.push([seg("  Open one: /pi-context notes read <address> · edit it: /pi-context notes edit <address> · the boot: /pi-context notes boot", "dim")])
  if (overview.versions !== false) {
    lines.push([seg("  Versions: /pi-context notes versions [address|@home] · diff <commit> · restore <address> <commit>", "dim")])
  }
  return lines.map((line) => fitLine(line, width))
}
