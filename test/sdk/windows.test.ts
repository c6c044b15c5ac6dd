import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { afterEach, describe, expect, it } from "vitest"
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
    // After the header and the bar's legend, three lines per window.
    const blocks = report.split("\n").slice(2)
    expected.forEach((window, i) => {
      const [head, peak, notes] = blocks.slice(i * 3, i * 3 + 3)
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
})
