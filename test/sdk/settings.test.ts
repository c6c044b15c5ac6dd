import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { createHarness, type Harness, makeDirs } from "../support/sdkHarness.ts"

describe("settings pi-context cannot use, in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("names each unknown or mistyped key once, with where it was found, and doctor lists them", async () => {
    const dirs = makeDirs()
    mkdirSync(dirs.agentDir, { recursive: true })
    // Written as text: JSON.stringify cannot write 1e400.
    writeFileSync(join(dirs.agentDir, "settings.json"), `{ "pi-context": { "hardline": 12000, "enabeld": true, "agentName": 7, "warningLine": 1e400 } }`)
    h = await createHarness({ dirs })
    h.script([fauxAssistantMessage("one"), fauxAssistantMessage("two")])
    await h.prompt("hi")
    await h.prompt("again")
    const settingsNotices = h.notices.map((notice) => notice.message).filter((message) => message.startsWith("pi-context: global settings:"))
    expect(settingsNotices).toEqual([
      "pi-context: global settings: pi-context.hardline = 12000 is not a pi-context setting (did you mean hardLine?); it is ignored.",
      "pi-context: global settings: pi-context.enabeld = true is not a pi-context setting (did you mean enabled?); it is ignored.",
      "pi-context: global settings: pi-context.warningLine = 1e400 is too large; using 28,672.",
      "pi-context: global settings: pi-context.agentName = 7 is a number, not a name (a text); using \"pi\"."
    ])
    await h.prompt("/pi-context doctor")
    const doctor = h.notices.at(-1)!.message
    // One line per problem, in the order they were found.
    const settingsLines = doctor.split("\n").filter((line) => line.startsWith("FAIL settings: "))
    expect(settingsLines.map((line) => /pi-context\.(\w+)/.exec(line)![1])).toEqual(["hardline", "enabeld", "warningLine", "agentName"])
    // Each names the file that holds it and what to do.
    const file = join(dirs.agentDir, "settings.json")
    for (const line of settingsLines) expect(line.endsWith(`; fix it in ${file}, then run /reload`)).toBe(true)
    // Every FAIL line says what to do about it.
    for (const line of doctor.split("\n").filter((line) => line.startsWith("FAIL"))) expect(line).toMatch(/; .*(fix|move|replace|point|run|make|set|install|raise|nothing to fix)/i)
    expect(h.errors).toEqual([])
  })
})

describe("a bad pi-context.sync, in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("is told like any bad setting, once, in doctor too, and never with the remote's credentials", async () => {
    const dirs = makeDirs()
    mkdirSync(dirs.agentDir, { recursive: true })
    const remote = "https://me:tok3n-s3cret@example.invalid/notes.git"
    writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify({
      "pi-context": { sync: [{ homes: ["session"], remote }, { homes: ["users"], remote, brnach: remote }] }
    }))
    h = await createHarness({ dirs })
    h.script([fauxAssistantMessage("one"), fauxAssistantMessage("two")])
    await h.prompt("hi")
    await h.prompt("again")
    const syncNotices = h.notices.map((notice) => notice.message).filter((message) => message.includes("pi-context.sync"))
    expect(syncNotices).toEqual([
      "pi-context: global settings: pi-context.sync[0].homes[0] = \"session\" is never synced: the session home is this session's alone; it is ignored.",
      "pi-context: global settings: pi-context.sync[1].brnach = \"https://***@example.invalid/notes.git\" is not a sync setting (did you mean branch?); it is ignored.",
      "pi-context: global settings: pi-context.sync[1].homes[0] = \"users\" is not a home (user, agent, model or project); it is ignored."
    ])
    await h.prompt("/pi-context doctor")
    const doctor = h.notices.at(-1)!.message
    expect(doctor).toMatch(/^FAIL settings: .*pi-context\.sync\[0\]\.homes\[0\]/m)
    expect(doctor).toMatch(/^FAIL settings: .*pi-context\.sync\[1\]\.brnach/m)
    // Each entry was ignored: not "no remote configured", which would read as if the setting were never written.
    expect(doctor).toMatch(/^FAIL notes sync: no remote set, since each pi-context\.sync entry was ignored \(see settings\); the notes stay on this machine$/m)
    // One problem after another, each once punctuated.
    expect(doctor).not.toContain(".; ")
    for (const notice of h.notices) expect(notice.message).not.toContain("tok3n-s3cret")
    expect(h.errors).toEqual([])
  })

  it("set through Pi by an SDK host, is checked the same way and named as set through Pi", async () => {
    h = await createHarness({ settings: { "pi-context": { sync: [{ homes: ["session"], remote: "/srv/notes.git", branch: "a..b" }] } } })
    h.script([fauxAssistantMessage("one")])
    await h.prompt("hi")
    expect(h.notices.map((notice) => notice.message).filter((message) => message.includes("pi-context.sync"))).toEqual([
      "pi-context: set through Pi: pi-context.sync[0].branch = \"a..b\" holds ..; using \"pi-context-notes\".",
      "pi-context: set through Pi: pi-context.sync[0].homes[0] = \"session\" is never synced: the session home is this session's alone; it is ignored."
    ])
    expect(h.errors).toEqual([])
  })
})

describe("settings given through Pi's SDK, in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("settings an SDK host gives Pi in memory are honoured, and where they disagree with a file the host's win, named as set through Pi", async () => {
    const dirs = makeDirs()
    mkdirSync(dirs.agentDir, { recursive: true })
    writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify({ "pi-context": { guidanceLine: 50000, warningLine: 28000 } }))
    h = await createHarness({ dirs, settings: { "pi-context": { warningLine: 30000, bootBudgetTokens: 5000, hardlin: 5 } } })
    h.script([fauxAssistantMessage("one")])
    await h.prompt("hi")
    await h.prompt("/pi-context status")
    const status = h.notices.at(-1)!.message
    expect(status).toMatch(/^warning line: 30,000 tokens left .*set through Pi: pi-context\.warningLine/m)
    expect(status).toMatch(/^guidance line: 50,000 tokens left .*set in the global settings.json: pi-context\.guidanceLine/m)
    expect(status).toMatch(/^boot budget: 5,000 tokens \(set through Pi: pi-context\.bootBudgetTokens\)/m)
    // The checks run on the effective values too: a typo given through Pi is named, with where it came from.
    expect(h.notices.map((notice) => notice.message)).toContain(
      "pi-context: set through Pi: pi-context.hardlin = 5 is not a pi-context setting (did you mean hardLine?); it is ignored."
    )
    expect(h.errors).toEqual([])
  })

  it("SettingsManager.inMemory({ \"pi-context\": { enabled: false } }) starts pi-context off", async () => {
    h = await createHarness({ settings: { "pi-context": { enabled: false } } })
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toMatch(/^pi-context \S+: off/)
    expect(h.notices.at(-1)!.message).toMatch(/^enabled setting: off \(set through Pi: pi-context\.enabled\); \/pi-context on\|off overrides it on a branch$/m)
  })
})
