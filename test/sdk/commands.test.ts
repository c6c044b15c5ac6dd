import { afterEach, describe, expect, it } from "vitest"
import { subcommands } from "../../src/commands/registry.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

describe("/pi-context subcommands come from the registry", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("an unknown subcommand names every registered one; no subcommand runs status", async () => {
    h = await createHarness()
    await h.prompt("/pi-context bogus")
    const refusal = h.notices.at(-1)!
    expect(refusal.level).toBe("warning")
    expect(refusal.message).toBe(`pi-context: unknown subcommand "bogus". Use one of: ${subcommands.map((command) => command.name).join(", ")}.`)

    await h.prompt("/pi-context")
    expect(h.notices.at(-1)!.message).toMatch(/^pi-context \S+: on/)
    expect(h.errors).toEqual([])
  })

  it("in Pi's TUI status is a chat entry holding the trace file's path whole", async () => {
    h = await createHarness({ mode: "tui" })
    await h.prompt("/pi-context status")
    const report = h.entries().find((entry) => entry.type === "custom" && entry.customType === "pi-context/report")
    expect(report).toMatchObject({ data: { kind: "text", title: expect.stringMatching(/^pi-context \S+: on$/) } })
    expect((report as { data: { text: string } }).data.text).toContain(`trace: ${h.dirs.agentDir}`)
    expect(h.notices.filter((notice) => notice.message.startsWith("pi-context "))).toEqual([])
  })
})
