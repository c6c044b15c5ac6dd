import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { toolResults } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

const call = (name: string, args: JsonObject) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })

describe("hostile tool calls in Pi's agent loop", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("answers regex and glob bombs, a 40,000-character literal and a 100,000-line edit through the runtime", async () => {
    h = await createHarness()
    const needle = "(x)[y]*".repeat(6_000).slice(0, 40_000)
    h.script([
      call("notes_write", { address: "bombs", content: `${"a".repeat(34)}!\nends with aaa\n${needle}\n` }),
      call("notes_write", { address: "todo", content: `${"- [ ]\n".repeat(99_999)}- [ ] ship it` }),
      call("notes_search", { query: "(a+)+$", regex: true }),
      call("history_search", { query: "(a+)+$", regex: true }),
      call("history_search", { query: needle }),
      call("notes_list", { pattern: `${"**a".repeat(7)}!` }),
      call("notes_update", { address: "todo", edits: [{ oldText: "- [ ]", newText: "- [x]" }] }),
      fauxAssistantMessage("done")
    ])
    await h.prompt(`Remember this line:\n${"a".repeat(34)}!\nand this one: ends with aaa`)
    expect(h.errors).toEqual([])
    const [, , notesSearch, historySearch, literal, listed, update] = toolResults(h.entries())
    expect(notesSearch!.isError).toBe(false)
    expect(notesSearch!.text).toContain("- bombs.md:2 (offset 36): ends with aaa")
    expect(notesSearch!.text).not.toContain("bombs.md:1 ")
    expect(historySearch!.isError).toBe(false)
    expect(historySearch!.text).toMatch(/^\d+ event\(s\) matching "\(a\+\)\+\$"/)
    expect(literal!.isError).toBe(false)
    expect(literal!.text).toMatch(/^\d+ event\(s\) matching "\(x\)\[y\]\*/)
    expect(listed!.text).toContain("No notes match.")
    expect(update!.isError).toBe(true)
    expect(update!.text).toContain("oldText occurs 100000 times (lines 1, 2, 3,")
    expect(update!.text.length).toBeLessThan(600)
  })
})
