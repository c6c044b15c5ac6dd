import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { execFileSync } from "node:child_process"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { call, checkpointAndWipe, say } from "../support/steps.ts"

/**
 * `/pi-context windows` and `history_windows` in Pi's real loop, checked
 * against the session's own entries: each window's peak usage is the highest
 * usage an assistant reply between two markers reported, its end is the next
 * marker's source, its notes are the successful notes_write/notes_update
 * results in it.
 */
const endWords: Record<string, string> = { tool: "wipe_memory", command: "/wipe-memory", "hard-line": "hard line" }

interface Expected {
  readonly peak: number | null
  readonly end: string
  readonly notes: ReadonlyArray<string>
}

const expectedFromEntries = (branch: ReadonlyArray<SessionEntry>): ReadonlyArray<Expected> => {
  const windows: Array<{ peak: number | null; end: string; notes: Array<string> }> = [{ peak: null, end: "open", notes: [] }]
  for (const entry of branch as ReadonlyArray<any>) {
    const current = windows[windows.length - 1]!
    if (entry.type === "custom" && entry.customType === "pi-context/reset-marker") {
      current.end = endWords[entry.data.source] ?? "reset"
      windows.push({ peak: null, end: "open", notes: [] })
      continue
    }
    if (entry.type !== "message") continue
    const m = entry.message
    if (m.role === "assistant" && m.usage?.totalTokens > 0) current.peak = Math.max(current.peak ?? 0, m.usage.totalTokens)
    if (m.role === "toolResult" && !m.isError && (m.toolName === "notes_write" || m.toolName === "notes_update")) {
      if (!current.notes.includes(m.details.address)) current.notes.push(m.details.address)
    }
  }
  return windows
}

/** The report's lines per window, each block from its `wN` head line to the next. */
const windowBlocks = (report: string): ReadonlyArray<ReadonlyArray<string>> =>
  report.split("\n").slice(2).reduce<Array<Array<string>>>((blocks, line) => {
    if (/^w\d+ /.test(line)) blocks.push([line])
    else blocks.at(-1)?.push(line)
    return blocks
  }, [])

const git = (cwd: string, ...args: ReadonlyArray<string>) => execFileSync("git", [...args], { cwd, encoding: "utf8" })

/** Each window's commits in the notes history, as git itself lists them: the subject's tally and the files with their status. */
const commitsByWindow = (root: string, short: string) => {
  const byWindow = new Map<number, { tally: string; files: Array<string> }>()
  const log = git(root, "log", "--format=%x1e%s", "--name-status", "--no-renames")
  for (const record of log.split("\x1e").slice(1)) {
    const [subject = "", ...files] = record.trim().split("\n")
    const match = new RegExp(`^w(\\d+) of session ${short}: (\\+\\d+ ~\\d+ −\\d+)$`).exec(subject)
    if (match === null) continue
    byWindow.set(Number(match[1]), { tally: match[2]!, files: files.filter((f) => f !== "").map((f) => f.replace("\t", " ")) })
  }
  return byWindow
}

const windowsReport = (h: Harness) => h.notices.filter((n) => n.message.startsWith("pi-context windows")).at(-1)!.message

describe("the windows of a branch", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("after two resets, /pi-context windows and history_windows show each window's peak, end and notes as the entries record them", async () => {
    h = await createHarness()
    h.script([
      say("started"),
      checkpointAndWipe("# Checkpoint\nstep one done"),
      say("fresh"),
      call("notes_write", { address: "second", content: "# Second\nmore" }),
      say("noted"),
      call("history_windows", {}),
      say("seen")
    ])
    await h.prompt("begin")
    await h.prompt("checkpoint and wipe")
    await h.prompt("write another note")
    await h.prompt("/wipe-memory")
    await h.prompt("list the windows")
    await h.prompt("/pi-context windows")

    const expected = expectedFromEntries(h.branch())
    expect(expected.map((w) => w.end)).toEqual(["wipe_memory", "/wipe-memory", "open"])
    expect(expected.map((w) => w.notes)).toEqual([["checkpoint.md"], ["second.md"], []])

    const report = windowsReport(h)
    expect(report).toMatch(/^pi-context windows · 3 on this branch, current w3/)
    // After the header and the bar's legend, a block per window: its head, peak and notes lines first.
    const blocks = windowBlocks(report)
    expect(blocks).toHaveLength(3)
    expected.forEach((window, i) => {
      const [head, peak, notes] = blocks[i]!
      expect(head).toMatch(new RegExp(`^w${i + 1} `))
      expect(head).toContain(window.end === "open" ? "open (current)" : `ended: ${window.end}`)
      expect(peak).toContain(window.peak === null ? "no reply measured" : `${window.peak.toLocaleString("en-US")} tokens`)
      expect(notes).toContain(window.notes.length === 0 ? "none written" : window.notes.join(", "))
    })

    // The model's view of the same facts, with the ids its other history tools take.
    const toolResult = (h.branch() as ReadonlyArray<any>).filter((e) => e.type === "message" && e.message.toolName === "history_windows").at(-1)
    const text = toolResult.message.content.map((c: { text?: string }) => c.text ?? "").join("")
    expected.forEach((window, i) => {
      const line = text.split("\n").find((l: string) => l.includes(`(w${i + 1} · `))!
      expect(line).toMatch(/^pcx:/)
      // The open window was still growing when the model asked; the ended ones are final.
      if (window.end === "open") return expect(line).toContain(" · open · ")
      expect(line).toContain(window.peak === null ? "peak unknown" : `peak ${window.peak.toLocaleString("en-US")} tokens`)
      expect(line).toContain(`ended by ${window.end}`)
      if (window.notes.length > 0) expect(line).toContain(`notes written: ${window.notes.join(", ")}`)
    })
  })

  it("two windows that write notes: the windows view and history_windows show each window's changes as its boundary commit holds them", async () => {
    h = await createHarness()
    const short = h.session.sessionManager.getSessionId().replace(/[^A-Za-z0-9]/g, "").slice(0, 8)
    h.script([
      call("notes_write", { address: "plan", content: "# Plan\nv1\n" }),
      call("notes_write", { address: "@project/decisions", content: "# Decisions\nuse sqlite\n" }),
      call("wipe_memory", {}),
      say("first window done"),
      call("notes_update", { address: "plan", edits: [{ oldText: "v1", newText: "v2" }] }),
      call("notes_write", { address: "@project/extra", content: "# Extra\n" }),
      call("wipe_memory", {}),
      say("second window done"),
      call("history_windows", {}),
      say("seen")
    ])
    await h.prompt("write two notes, then wipe")
    // Each window's commit lands before the next window writes (a commit holds the homes as they are when it runs).
    await h.prompt("/pi-context windows")
    expect(windowBlocks(windowsReport(h))[0]).toContain("    committed notes: +2 ~0 −0")
    await h.prompt("change one, add one, then wipe")
    // The command waits for the boundary commits still in flight (the faux model answers faster than git commits).
    await h.prompt("/pi-context windows")
    await h.prompt("list the windows")

    const commits = commitsByWindow(h.dirs.notesRoot, short)
    expect([...commits.keys()].sort()).toEqual([1, 2])
    expect(commits.get(1)!.tally).toBe("+2 ~0 −0")
    expect(commits.get(2)!.tally).toBe("+1 ~1 −0")

    const blocks = windowBlocks(windowsReport(h))
    expect(blocks).toHaveLength(3)
    for (const ordinal of [1, 2]) {
      const block = blocks[ordinal - 1]!
      const { tally, files } = commits.get(ordinal)!
      const at = block.findIndex((line) => line.startsWith("    committed notes: "))
      expect(block[at]).toBe(`    committed notes: ${tally}`)
      // Plain text names each note of the commit, with its change: a file `A path` is `+address`, `M path` is `~address`.
      const named = block.slice(at + 1).map((line) => line.trim())
      expect(named).toHaveLength(files.length)
      for (const file of files) {
        const [status, path] = file.split(" ") as [string, string]
        const mark = status === "A" ? "+" : status === "M" ? "~" : "−"
        const address = path.includes("/decisions.md") ? "@project/decisions.md" : path.includes("/extra.md") ? "@project/extra.md" : "plan.md"
        expect(path.endsWith(address.replace(/^@project\//, ""))).toBe(true)
        expect(named).toContain(`${mark}${address}`)
      }
    }
    expect(blocks[2]).toContain("    committed notes: at the window's end")

    const toolResult = (h.branch() as ReadonlyArray<any>).filter((e) => e.type === "message" && e.message.toolName === "history_windows").at(-1)
    const text: string = toolResult.message.content.map((c: { text?: string }) => c.text ?? "").join("")
    const w1 = text.split("\n").find((l) => l.includes("(w1 · "))!
    expect(w1).toMatch(/· notes committed \+2 ~0 −0 \((\+@project\/decisions\.md, \+plan\.md|\+plan\.md, \+@project\/decisions\.md)\)/)
    const w2 = text.split("\n").find((l) => l.includes("(w2 · "))!
    expect(w2).toMatch(/· notes committed \+1 ~1 −0 \((\+@project\/extra\.md, ~plan\.md|~plan\.md, \+@project\/extra\.md)\)/)
    // Each boundary commit is keyed by the full session id and the id of the window that ended, as history_windows names it.
    const keys = git(h.dirs.notesRoot, "log", "--reverse", "--format=%(trailers:key=Pi-Context-Session,valueonly,separator=) %(trailers:key=Pi-Context-Window,valueonly,separator=)")
      .split("\n").filter((line) => line.trim() !== "")
    expect(keys).toEqual([w1, w2].map((line) => `${h.session.sessionManager.getSessionId()} ${line.split(" ")[0]}`))
    expect(h.errors).toEqual([])
  })

  it("the current window is open until the view is asked for: minutes after its last entry it says so", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse("2026-03-02T09:00:00Z") })
    try {
      h = await createHarness()
      h.script([say("done")])
      await h.prompt("one question")
      vi.setSystemTime(Date.parse("2026-03-02T09:07:30Z"))
      await h.prompt("/pi-context windows")
      const [head] = windowBlocks(h.notices.at(-1)!.message)[0]!
      expect(head).toMatch(/· open for 7m · 1 turn · open \(current\)$/)
    } finally {
      vi.useRealTimers()
    }
  })
})
