import { getCurrentTools } from "@earendil-works/pi-ai"
import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { ofCustomType, toolResults } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { checkpointAndWipe } from "../support/steps.ts"

const call = (name: string, args: JsonObject) =>
  fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })
const say = (text: string) => fauxAssistantMessage(text)
const wipe = checkpointAndWipe


/** The text between the `---` fences of a history_read result. */
const pageBody = (text: string): string => {
  const start = text.indexOf("\n---\n") + 5
  const end = text.lastIndexOf("\n---\n")
  return text.slice(start, end)
}

describe("history tools in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("after two resets the model lists windows, finds a word from the first window and reads that event in two pages", async () => {
    h = await createHarness()
    const said = "In the first window I decided the codename is PELICAN-7 and the port is 4711."
    h.script([say(said), wipe(), say("second window"), wipe(), say("third window")])
    await h.prompt("one")
    await h.prompt("wipe one")
    await h.prompt("wipe two")
    const windowIds = (ofCustomType(h.entries(), "pi-context/boot") as Array<{ details: { windowId: string } }>)
      .map((boot) => boot.details.windowId)
    expect(new Set(windowIds).size).toBe(3)
    const [firstWindow, , currentWindow] = windowIds
    const before = toolResults(h.entries()).length

    // Each step reads the previous tool result from the session, as a model would from its context.
    const last = () => toolResults(h.entries()).at(-1)!
    h.script([
      call("history_windows", {}),
      () => call("history_search", { query: "pelican-7", window_id: last().details.windows[0].id }),
      () => call("history_read", { seq: last().details.hits[0].seq, limit: 40 }),
      () => call("history_read", { seq: last().details.seq, offset: last().details.nextOffset }),
      say("found it")
    ])
    await h.prompt("what was the codename?")
    expect(h.errors).toEqual([])

    const [windows, search, page1, page2] = toolResults(h.entries()).slice(before)
    for (const result of [windows, search, page1, page2]) expect(result!.isError).toBe(false)

    expect(windows!.toolName).toBe("history_windows")
    expect(windows!.text).toMatch(/^3 window\(s\) on the active branch, oldest first:/)
    const lines = windows!.text.split("\n").slice(1, 4)
    expect(lines[0]).toMatch(new RegExp(`^${firstWindow} `))
    expect(lines[2]).toMatch(new RegExp(`^${currentWindow} .*\\[current\\]$`))
    expect(windows!.details.windows.map((w: { id: string }) => w.id)).toEqual(windowIds)

    expect(search!.toolName).toBe("history_search")
    expect(search!.text).toMatch(/^1 event\(s\) matching "pelican-7"/)
    expect(search!.text).toContain(`window ${firstWindow}`)
    expect(search!.text).toContain("PELICAN-7 and the port is 4711")
    const hit = search!.details.hits[0]
    expect(hit.windowId).toBe(firstWindow)
    expect(search!.text).toContain(`history_read {"seq":${hit.seq},"offset":${hit.offset}}`)

    expect(page1!.toolName).toBe("history_read")
    expect(page1!.details).toMatchObject({ seq: hit.seq, windowId: firstWindow, offset: 0, nextOffset: 40 })
    expect(page1!.text).toMatch(new RegExp(`^#${hit.seq} assistant `))
    expect(page1!.text).toContain(`code points 0–40 of ${page1!.details.total}`)
    expect(page1!.text).toContain(`continue: history_read {"seq":${hit.seq},"offset":40}`)
    expect([...pageBody(page1!.text)]).toHaveLength(40)

    expect(page2!.details).toMatchObject({ seq: hit.seq, offset: 40, total: page1!.details.total })
    expect(page2!.details.nextOffset).toBeUndefined()
    expect(page2!.text).toMatch(/\nend of event$/)
    // The two pages join into the whole event, which holds what was said in the first window.
    const whole = pageBody(page1!.text) + pageBody(page2!.text)
    expect([...whole]).toHaveLength(page1!.details.total)
    expect(whole).toContain(said)
    // The search offset points at the match (code points; the text here is ASCII).
    expect(whole.indexOf("PELICAN-7")).toBe(hit.offset)

  })
  it("history_search leaves out the current turn's own calls and prompt, and finds the earlier mention", async () => {
    h = await createHarness()
    h.script([say("The codename is OSPREY-3."), call("history_search", { query: "osprey-3" }), say("done")])
    await h.prompt("remember a codename")
    // The history tools are offered from the first reset on.
    await h.prompt("/wipe-memory")
    await h.prompt("search the history for OSPREY-3")
    const search = toolResults(h.entries()).at(-1)!
    expect(search.isError).toBe(false)
    const hits = search.details.hits as ReadonlyArray<{ seq: number; role: string }>
    // Only the reply that said it: not the prompt that asked, not the search call itself.
    expect(hits).toHaveLength(1)
    expect(search.text).toContain("assistant")
    expect(search.text).not.toContain("history_search")
    expect(search.text).not.toContain("search the history for")
  })

  it("offers the history tools from the first reset on: before it they have nothing the window does not hold", async () => {
    h = await createHarness()
    h.script([say("one"), say("two")])
    const offered = (index: number) => getCurrentTools(h.requests[index]!.messages as never).map((tool) => tool.name)
    await h.prompt("hello")
    expect(offered(0)).toContain("notes_write")
    expect(offered(0).filter((name) => name.startsWith("history_"))).toEqual([])
    await h.prompt("/wipe-memory")
    await h.prompt("go on")
    expect(offered(1)).toEqual(expect.arrayContaining(["history_windows", "history_list", "history_search", "history_read"]))
  })
})
