import { describe, expect, it } from "vitest"
import { visibleWidth as terminalColumns } from "@earendil-works/pi-tui"
import { notesComponent, registerReportRenderer, showReport, textReport, windowsComponent, windowsPlainText } from "../../src/pi/reportView.ts"
import type { WindowFacts } from "../../src/kernel/facts.ts"
import { usageBar, windowFactsSummary } from "../../src/window/view.ts"
import { NoNoteChanges } from "../../src/notes/versions/windowChanges.ts"
import { type WindowNoteChanges } from "../../src/kernel/facts.ts"
import type { NotesOverview } from "../../src/kernel/report.ts"

/** Pi's TUI components render to lines; a theme that adds no colour leaves the text to compare. */
const plainTheme = { fg: (_color: string, text: string) => text, bg: (_color: string, text: string) => text } as never
const colourTheme = { fg: (color: string, text: string) => `<${color}>${text}</${color}>`, bg: (_c: string, text: string) => text } as never
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16)
const t0 = Date.parse("2026-12-01T09:00:00Z")
const min = 60_000

const facts = (over: Partial<WindowFacts> & Pick<WindowFacts, "ordinal">): WindowFacts => ({
  id: `pcx:s:${over.ordinal}`,
  isRoot: over.ordinal === 1,
  startedAt: t0,
  end: { _tag: "Open" },
  lastActivityAt: t0,
  turns: 0,
  peakTokens: null,
  notesWritten: [],
  bootTokens: null,
  ...over
})

const branch: ReadonlyArray<WindowFacts> = [
  facts({
    ordinal: 1,
    startedAt: t0,
    lastActivityAt: t0 + 14 * min,
    turns: 9,
    peakTokens: 150_000,
    notesWritten: ["plan", "@project/decisions"],
    bootTokens: 812,
    end: { _tag: "Reset", source: "tool", at: t0 + 14 * min }
  }),
  facts({
    ordinal: 2,
    startedAt: t0 + 14 * min,
    lastActivityAt: t0 + 80 * min,
    turns: 31,
    peakTokens: 186_000,
    notesWritten: [],
    bootTokens: 1_204,
    end: { _tag: "Reset", source: "hard-line", at: t0 + 80 * min }
  }),
  facts({ ordinal: 3, startedAt: t0 + 80 * min, lastActivityAt: t0 + 83 * min, turns: 2, peakTokens: 21_000, bootTokens: 1_310 })
]
const scale = { contextWindow: 200_000, warningLine: 28_672, hardLine: 16_384 }

const visibleWidth = (line: string) => Array.from(line).length

describe("the windows view", () => {
  for (const width of [80, 160]) {
    it(`fits ${width} columns and shows every window's facts`, () => {
      const lines = windowsComponent(branch, scale, plainTheme, clock).render(width)
      for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width)
      const text = lines.join("\n")
      expect(lines[0]).toMatch(/^pi-context windows · 3 on this branch, current w3/)
      expect(text).toContain("w1  began 09:00 · lasted 14m · 9 turns · ended: wipe_memory")
      expect(text).toContain("w2  began 09:14 · lasted 1h 06m · 31 turns · ended: hard line")
      expect(text).toContain("w3  began 10:20 · open for 3m · 2 turns · open (current)")
      expect(text).toContain("75% · 150,000 tokens")
      expect(text).toContain("93% · 186,000 tokens")
      expect(text).toContain("notes plan, @project/decisions · boot 812 tokens")
      expect(text).toContain("notes none written · boot 1,204 tokens")
      expect(text).not.toContain("pcx:")
    })
  }

  it("the open window has been open until the view was asked for, not until its last entry; an ended one lasted to its end", () => {
    // w3 began at 10:20 and its last entry is from 10:23; the user asks at 10:41.
    const shownAt = t0 + 101 * min
    const text = windowsComponent(branch, scale, plainTheme, clock, false, shownAt).render(120).join("\n")
    expect(text).toContain("w3  began 10:20 · open for 21m · 2 turns · open (current)")
    expect(text).toContain("w2  began 09:14 · lasted 1h 06m · 31 turns")
    expect(windowsPlainText(branch, scale, 120, clock, shownAt)).toContain("open for 21m")
    let renderer: ((entry: unknown, options: unknown, theme: unknown) => { render: (w: number) => ReadonlyArray<string> } | undefined) | undefined
    registerReportRenderer({ registerEntryRenderer: (_type: string, r: typeof renderer) => void (renderer = r) } as never)
    expect(renderer!({ data: { kind: "windows", windows: branch, scale, shownAt } }, { expanded: false }, plainTheme)!.render(120).join("\n")).toMatch(/open for 21m/)
  })

  it("draws the bar wider at 160 columns, against the warning and hard lines", () => {
    const bar = (width: number) => windowsComponent(branch, scale, plainTheme, clock).render(width)[3]!
    const cells = (line: string) => /\[([^\]]*)\]/.exec(line)![1]!.length
    expect(cells(bar(80))).toBe(40)
    expect(cells(bar(160))).toBe(60)
    // 150,000 of 200,000 used: 30 of 40 cells filled; the warning line at 86% (cell 34), the hard line at 92% (cell 37).
    expect(bar(80)).toContain("[██████████████████████████████····|··!··]")
  })

  it("colours the peak by the line it reached, with Pi's theme", () => {
    const lines = windowsComponent(branch, scale, colourTheme, clock).render(120)
    expect(lines[1]).toBe("<dim>peak usage of 200,000 tokens · | warning line · ! hard line</dim>")
    expect(lines[3]).toContain("<success>█")
    expect(lines[6]).toContain("<error>█")
    expect(lines[5]).toContain("<warning>ended: hard line</warning>")
  })

  it("without a model it shows the peak in tokens, with no bar", () => {
    const text = windowsPlainText(branch, undefined, 80, clock)
    expect(text).toContain("peak 150,000 tokens")
    expect(text).not.toContain("[")
  })

  it("draws the newest 20 windows of a long branch and names the earlier ones", () => {
    const many = Array.from({ length: 25 }, (_, i) => facts({ ordinal: i + 1, end: i === 24 ? { _tag: "Open" } : { _tag: "Reset", source: "tool", at: t0 } }))
    const lines = windowsComponent(many, scale, plainTheme, clock).render(80)
    expect(lines[2]).toBe("5 earlier windows not shown; history_windows lists them all.")
    expect(lines[3]).toMatch(/^w6 /)
    expect(lines.at(-3)).toMatch(/^w25 /)
    expect(lines).toHaveLength(3 + 20 * 3)
  })

  it("the bar handles a window with no measured reply", () => {
    const bar = usageBar(null, scale, 20).map((s) => s.text).join("")
    expect(bar).toBe(`[${"·".repeat(17)}|!·]`)
  })
})

const committed = (notes: WindowNoteChanges["notes"]): WindowNoteChanges => ({
  added: notes.filter((n) => n.kind === "added").length,
  modified: notes.filter((n) => n.kind === "modified").length,
  deleted: notes.filter((n) => n.kind === "deleted").length,
  notes,
  commits: ["abc1234"]
})
const longAddress = "@project/a-rather-long-address-for-decisions-about-the-parser-and-its-error-recovery.md"
const withHistory: ReadonlyArray<WindowFacts> = [
  { ...branch[0]!, noteChanges: committed([{ address: "plan.md", kind: "added" }, { address: longAddress, kind: "added" }, { address: "@user/old.md", kind: "deleted" }]) },
  { ...branch[1]!, noteChanges: NoNoteChanges },
  { ...branch[2]!, noteChanges: NoNoteChanges }
]

describe("the windows view with a notes history", () => {
  for (const width of [80, 160]) {
    it(`at ${width} columns shows each window's committed tally beside the notes it wrote, and each note when expanded`, () => {
      const collapsed = windowsComponent(withHistory, scale, plainTheme, clock).render(width)
      const expanded = windowsComponent(withHistory, scale, plainTheme, clock, true).render(width)
      for (const line of [...collapsed, ...expanded]) expect(visibleWidth(line)).toBeLessThanOrEqual(width)
      // Each window's block: head, peak, notes written, then its commits.
      expect(collapsed[4]).toContain("notes plan, @project/decisions · boot 812 tokens")
      expect(collapsed[5]).toBe("    committed notes: +2 ~0 −1")
      expect(collapsed[9]).toBe("    committed notes: none")
      expect(collapsed[13]).toBe("    committed notes: at the window's end")
      expect(collapsed).toHaveLength(2 + 3 * 4)
      expect(collapsed.join("\n")).not.toContain("plan.md")

      expect(expanded.slice(5, 9)).toEqual([
        "    committed notes: +2 ~0 −1",
        "      +plan.md",
        width === 80 ? expect.stringMatching(/^ {6}\+@project\/a-rather-long.*…$/) : `      +${longAddress}`,
        "      −@user/old.md"
      ])
      expect(expanded).toHaveLength(2 + 3 * 4 + 3)
    })
  }

  it("names at most eight notes of a window, and how many more", () => {
    const many = committed(Array.from({ length: 11 }, (_, i) => ({ address: `n${i}.md`, kind: "modified" as const })))
    const lines = windowsPlainText([{ ...branch[2]!, noteChanges: many }], scale, 80, clock).split("\n")
    expect(lines).toContain("    committed notes: +0 ~11 −0")
    expect(lines).toContain("      ~n7.md")
    expect(lines).not.toContain("      ~n8.md")
    expect(lines).toContain("      … and 3 more")
  })

  it("plain text (print and RPC modes) names the notes; the TUI entry expands to them", () => {
    const text = windowsPlainText(withHistory, scale, 100, clock)
    expect(text).toContain("    committed notes: +2 ~0 −1\n      +plan.md\n")
    let renderer: ((entry: unknown, options: unknown, theme: unknown) => { render: (w: number) => ReadonlyArray<string> } | undefined) | undefined
    registerReportRenderer({ registerEntryRenderer: (_type: string, r: typeof renderer) => void (renderer = r) } as never)
    const draw = (expanded: boolean) => renderer!({ data: { kind: "windows", windows: withHistory, scale } }, { expanded }, plainTheme)!.render(80)
    expect(draw(false)).not.toContain("      +plan.md")
    expect(draw(true)).toContain("      +plan.md")
  })

  it("history_windows gives the model the same tally and notes; without a history, nothing of it", () => {
    expect(windowFactsSummary(withHistory[0]!)).toContain(`· notes committed +2 ~0 −1 (+plan.md, +${longAddress}, −@user/old.md)`)
    expect(windowFactsSummary(withHistory[1]!)).toMatch(/ · no notes committed$/)
    expect(windowFactsSummary(withHistory[2]!)).toMatch(/ · notes committed at the window's end$/)
    expect(windowFactsSummary(branch[0]!)).not.toContain("committed")
  })

  it("a window whose commit is still queued or running is named as being committed, not as having none", () => {
    const pending: ReadonlyArray<WindowFacts> = [
      { ...withHistory[0]!, noteChanges: { ...withHistory[0]!.noteChanges!, pending: true } },
      { ...branch[1]!, noteChanges: { ...NoNoteChanges, pending: true } }
    ]
    const lines = windowsPlainText(pending, scale, 80, clock).split("\n")
    expect(lines).toContain("    committed notes: +2 ~0 −1, more being committed")
    expect(lines).toContain("    committed notes: being committed")
    expect(windowFactsSummary(pending[0]!)).toMatch(/ · notes committed \+2 ~0 −1 \(.*\), more being committed$/)
    expect(windowFactsSummary(pending[1]!)).toMatch(/ · notes being committed$/)
  })

  it("a window whose commit waited on the user's merge says so, not that it changed nothing", () => {
    const waited: WindowFacts = { ...branch[1]!, noteChanges: { ...NoNoteChanges, waiting: "in the middle of a merge" } }
    expect(windowsPlainText([waited], scale, 80, clock).split("\n")).toContain("    committed notes: not yet: the repository is in the middle of a merge")
    expect(windowFactsSummary(waited)).toMatch(/ · notes not committed yet \(the repository is in the middle of a merge\)$/)
  })
})

const overview: NotesOverview = {
  root: "~/.pi/agent/pi-context/notes",
  homes: [
    { home: "session", count: 3 },
    { home: "project", count: 1 },
    { home: "user", count: 0 },
    { home: "agent", count: null, reason: "permission denied" },
    { home: "model", count: 0 }
  ],
  rows: [
    { address: "checkpoint.md", title: "Checkpoint: parser rewrite, step 3 of 5", size: "1.2 KB", age: "4 min ago" },
    { address: "MAP.md", title: "Session map", size: "310 B", age: "4 min ago" },
    { address: "@project/a-rather-long-address-for-decisions-about-the-parser.md", title: "Decisions", size: "2.0 KB", age: "2 d ago" }
  ],
  more: 1
}

describe("the notes overview", () => {
  for (const width of [80, 160]) {
    it(`fits ${width} columns: the root, counts per home, then notes newest first with title, size and age`, () => {
      const lines = notesComponent(overview, plainTheme).render(width)
      for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width)
      expect(lines[0]).toBe("pi-context notes · 4 notes · root ~/.pi/agent/pi-context/notes")
      expect(lines[1]!.startsWith("  session 3 · project 1 · user 0 · agent unreadable (permission denied)")).toBe(true)
      expect(lines[2]).toMatch(/^ {2}checkpoint\.md +1\.2 KB · 4 min ago +Checkpoint: parser rewrite/)
      expect(lines[3]).toMatch(/^ {2}MAP\.md +310 B · 4 min ago/)
      expect(lines[4]).toMatch(/^ {2}@project\/a-rather/)
      expect(lines.join("\n")).toContain("… and 1 older")
    })
  }

  it("lists notes sync's conflict copies under the homes until they are resolved", () => {
    const conflicts = ["@user/plan.md: the other side's text is kept in @user/plan.conflict-20261201T211503Z.md"]
    const lines = notesComponent({ ...overview, conflicts }, plainTheme).render(160)
    expect(lines[2]).toBe("  1 sync conflict pending: merge the copy into the note, then delete or retire the copy")
    expect(lines[3]).toBe(`    ${conflicts[0]}`)
    expect(lines[4]).toMatch(/^ {2}checkpoint\.md/)
    for (const line of notesComponent({ ...overview, conflicts }, plainTheme).render(80)) expect(visibleWidth(line)).toBeLessThanOrEqual(80)
    expect(notesComponent({ ...overview, conflicts: [] }, plainTheme).render(160).join("\n")).not.toContain("conflict")
  })

  it("cuts a long address at 80 columns and keeps it whole at 160", () => {
    expect(notesComponent(overview, plainTheme).render(80)[4]).toContain("…")
    expect(notesComponent(overview, plainTheme).render(160)[4]).toContain("@project/a-rather-long-address-for-decisions-about-the-parser.md")
  })
})

describe("reports stay on screen", () => {
  it("in Pi's TUI a report becomes a pi-context/report entry (which never reaches the model); elsewhere a notice in plain text", () => {
    const appended: Array<{ customType: string; data: unknown }> = []
    const notified: Array<string> = []
    const pi = { appendEntry: (customType: string, data: unknown) => void appended.push({ customType, data }) } as never
    const ctx = (mode: string) => ({ mode, ui: { notify: (message: string) => void notified.push(message) } }) as never
    const report = { kind: "windows" as const, windows: branch, scale }
    showReport(pi, ctx("tui"), report)
    expect(appended).toEqual([{ customType: "pi-context/report", data: report }])
    expect(notified).toEqual([])
    showReport(pi, ctx("rpc"), report)
    expect(notified[0]).toMatch(/^pi-context windows · 3 on this branch/)
    showReport(pi, ctx("print"), textReport("pi-context doctor\nok   settings: no problems"))
    expect(notified[1]).toBe("pi-context doctor\nok   settings: no problems")
  })

  it("a warning text report is drawn in the theme's warning colour in the chat, and notified as a warning elsewhere", () => {
    let renderer: ((entry: unknown, options: unknown, theme: unknown) => { render: (w: number) => ReadonlyArray<string> } | undefined) | undefined
    registerReportRenderer({ registerEntryRenderer: (_type: string, r: typeof renderer) => void (renderer = r) } as never)
    const warning = { kind: "text" as const, level: "warning" as const, title: "pi-context: the /tree summary was left empty", text: "Use the history tools." }
    expect(renderer!({ data: warning }, { expanded: false }, colourTheme)!.render(80)[0]).toBe("<warning>pi-context: the /tree summary was left empty</warning>")
    expect(renderer!({ data: { ...warning, level: undefined } }, { expanded: false }, colourTheme)!.render(80)[0]).toMatch(/^<accent>/)
    const notified: Array<{ message: string; level: string }> = []
    const ctx = { mode: "rpc", ui: { notify: (message: string, level: string) => void notified.push({ message, level }) } } as never
    showReport({} as never, ctx, warning)
    expect(notified).toEqual([{ message: "pi-context: the /tree summary was left empty\nUse the history tools.", level: "warning" }])
  })

  it("the report entry renders each kind at the chat's width", () => {
    let renderer: ((entry: unknown, options: unknown, theme: unknown) => { render: (w: number) => ReadonlyArray<string> } | undefined) | undefined
    registerReportRenderer({ registerEntryRenderer: (_type: string, r: typeof renderer) => void (renderer = r) } as never)
    const draw = (data: unknown, width: number) => renderer!({ data }, { expanded: false }, plainTheme)!.render(width)
    expect(draw({ kind: "windows", windows: branch, scale }, 80)[0]).toMatch(/^pi-context windows/)
    expect(draw({ kind: "notes", overview }, 160)[0]).toMatch(/^pi-context notes · 4 notes/)
    expect(draw({ kind: "text", title: "pi-context doctor", text: "ok   settings: no problems" }, 80)).toEqual([
      "pi-context doctor",
      "ok   settings: no problems"
    ])
    expect(renderer!({ data: { kind: "nonsense" } }, { expanded: false }, plainTheme)).toBeUndefined()
  })

  it("a text report wraps at the chat's width: status's trace path at its separators, never inside a name, and nothing cut off", () => {
    let renderer: ((entry: unknown, options: unknown, theme: unknown) => { render: (w: number) => ReadonlyArray<string> } | undefined) | undefined
    registerReportRenderer({ registerEntryRenderer: (_type: string, r: typeof renderer) => void (renderer = r) } as never)
    const path = "/home/someone/.pi/agent/pi-context/traces/0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"
    const long = "guidance line: 30,336 tokens left (pi-context.guidanceLine, global settings ~/.pi/agent/settings.json)"
    const status = textReport(`pi-context 0.1.0: on\nwindow: w3 (id pcx:eeeeffff0000:w3, for the history tools)\ntrace: ${path}\n${long}`)
    const lines = renderer!({ data: status }, { expanded: false }, plainTheme)!.render(80)
    expect(lines.every((line) => Array.from(line).length <= 80)).toBe(true)
    expect(lines).toContain("trace: /home/someone/.pi/agent/pi-context/traces/")
    expect(lines).toContain("0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl")
    expect(lines.join(" ")).toContain(long)
    expect(lines.join("")).not.toContain("…")
  })

  it("measures a text report in terminal columns: a note in wide characters never passes the width (Pi's TUI stops on such a line)", () => {
    let renderer: ((entry: unknown, options: unknown, theme: unknown) => { render: (w: number) => ReadonlyArray<string> } | undefined) | undefined
    registerReportRenderer({ registerEntryRenderer: (_type: string, r: typeof renderer) => void (renderer = r) } as never)
    const body = "決定事項".repeat(15)
    const lines = renderer!({ data: { kind: "text", title: "@project/決定.md · 180 B", text: body } }, { expanded: false }, plainTheme)!.render(80)
    expect(lines.every((line) => terminalColumns(line) <= 80)).toBe(true)
    expect(lines.slice(1).join("")).toBe(body)
  })
})
