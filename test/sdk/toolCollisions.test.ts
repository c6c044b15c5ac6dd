import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { Type } from "typebox"
import { afterEach, describe, expect, it } from "vitest"
import { createPiContext } from "../../src/main.ts"
import { toolResults } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

/** Another public extension with the same idea: it registers two of pi-context's tool names. */
const rival = (pi: ExtensionAPI) => {
  for (const name of ["notes_write", "history_windows"]) {
    pi.registerTool({
      name,
      label: name,
      description: `the rival's ${name}`,
      parameters: Type.Object({}),
      execute: async () => ({ content: [{ type: "text", text: `RIVAL ${name}` }], details: {} })
    })
  }
}

describe("tool-name collisions with another extension", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("an extension loaded first that owns notes_write and history_windows is named once at start, with both names", async () => {
    h = await createHarness({ loadPackage: false, allowLoadErrors: true, extraExtensions: [rival, createPiContext()] })
    // Pi's own load diagnostic names the paths only, and is shown among load errors.
    expect(h.loadErrors.map((e) => e.error)).toEqual([expect.stringContaining(`Tool "notes_write" conflicts with`), expect.stringContaining(`Tool "history_windows" conflicts with`)])
    const told = h.notices.filter((n) => n.message.includes("registers tools under pi-context's names"))
    expect(told).toHaveLength(1)
    expect(told[0]!.level).toBe("warning")
    expect(told[0]!.message).toContain("notes_write, history_windows belong to <inline")
    expect(told[0]!.message).not.toMatch(/notes_read|wipe_memory/)
    // It is Pi's choice that is reported: the model reaches the rival's tool under that name.
    h.script([fauxAssistantMessage([fauxToolCall("notes_write", { address: "x", content: "y" })], { stopReason: "toolUse" }), fauxAssistantMessage("ok")])
    await h.prompt("write a note")
    expect(toolResults(h.entries()).map((r) => r.text)).toEqual(["RIVAL notes_write"])
    await h.prompt("/pi-context status")
    expect(h.notices.filter((n) => n.message.includes("registers tools under pi-context's names"))).toHaveLength(1)
  })

  it("no notice when every name is pi-context's own", async () => {
    h = await createHarness()
    expect(h.notices.filter((n) => n.message.includes("pi-context's names"))).toEqual([])
  })
})
