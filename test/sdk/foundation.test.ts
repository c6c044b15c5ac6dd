import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"

const packageVersion = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version as string

describe("pi-context loads as an installed package", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it(`runs on the Node the npm scripts provide: ${process.version}`, () => {
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(24)
  })

  it("registers its tools and commands, and /pi-context status names the version, window, usage and trace file", async () => {
    h = await createHarness()
    const tools = h.session.getAllTools().map((tool) => tool.name)
    for (const name of ["wipe_memory", "notes_write", "history_read", "context_remaining"]) expect(tools).toContain(name)
    h.script([fauxAssistantMessage("hello")])
    await h.prompt("hi")
    await h.prompt("/pi-context status")
    const status = h.notices.at(-1)!.message
    expect(status).toContain(`pi-context ${packageVersion}: on`)
    expect(status).toMatch(/window: w1 \(id pcx:\w+:root, for the history tools\)/)
    expect(status).toMatch(/usage: [\d,]+ of 200,000 tokens/)
    const traceFile = /trace: (\S+\.jsonl)/.exec(status)![1]!
    expect(traceFile.startsWith(h.dirs.agentDir)).toBe(true)
    expect(existsSync(traceFile)).toBe(true)
    const events = readFileSync(traceFile, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line).event)
    expect(events).toContain("session.start")
    expect(h.statuses.at(-1)).toEqual({ key: "pi-context", text: expect.stringMatching(/^pi-context · \d+% · w1$/) })
    expect(h.errors).toEqual([])
  })
})

describe("/pi-context status after tracing turned itself off", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("says why the trace is off instead of naming a file nothing is written to", async () => {
    const dirs = makeDirs()
    // A file where the traces folder belongs: the first trace line fails and tracing stops.
    mkdirSync(dirs.agentDir, { recursive: true })
    writeFileSync(join(dirs.agentDir, "pi-context"), "not a folder")
    h = await createHarness({ dirs })
    h.script([fauxAssistantMessage("hello")])
    await h.prompt("hi")
    await h.prompt("/pi-context status")
    const status = h.notices.at(-1)!.message
    expect(status).toMatch(/^trace off: cannot write \S+\.jsonl \(ENOTDIR\); make its folder writable, or set pi-context\.traceLevel to "off"$/m)
    expect(status).not.toMatch(/^trace: /m)
    expect(h.notices.filter((notice) => notice.message.includes("trace disabled"))).toHaveLength(1)
    rmSync(dirs.root, { recursive: true, force: true })
  })
})

describe("/pi-context doctor and trace", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("doctor checks the note homes, settings and the reset boundary; trace lists recent events", async () => {
    h = await createHarness()
    h.script([fauxAssistantMessage("hello")])
    await h.prompt("hi")
    await h.prompt("/pi-context doctor")
    const doctor = h.notices.at(-1)!.message
    expect(doctor).toContain("pi-context doctor")
    for (const home of ["session", "project", "user", "agent", "model"]) expect(doctor).toMatch(new RegExp(`ok +notes home ${home}: 0 notes`))
    expect(doctor).toContain("settings: no problems")
    expect(doctor).toContain("reset boundary: complete")
    await h.prompt("/pi-context trace")
    const trace = h.notices.at(-1)!.message
    expect(trace).toMatch(/^pi-context trace: \S+\.jsonl/)
    expect(trace).toContain("session.start")
  })
})

describe("TUI rendering", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("draws a reset marker as a divider that names the new window by its w-number", async () => {
    h = await createHarness()
    const renderer = h.session.extensionRunner!.getEntryRenderer("pi-context/reset-marker")!
    const plainTheme = { fg: (_color: string, text: string) => text, bg: (_color: string, text: string) => text } as never
    const shown = { ordinal: 3, peakTokens: 150_000, contextWindow: 200_000, notesIndexed: 4, checkpointed: false }
    const entry = { type: "custom", customType: "pi-context/reset-marker", data: { windowId: "pcx:abc:1234", source: "hard-line", shown }, id: "e1", parentId: null, timestamp: "" }
    const lines = renderer(entry as never, { expanded: false } as never, plainTheme)!.render(200).join("\n")
    expect(lines).toContain("context reset: hard line reached · w2 peaked at 75% (150,000 tokens) · w3 starts from 4 notes · no checkpoint")
    expect(lines).not.toContain("pcx:abc")
  })
})
