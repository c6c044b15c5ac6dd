import { getCurrentTools } from "@earendil-works/pi-ai"
import { afterEach, describe, expect, it } from "vitest"
import { ToolName } from "../../src/kernel/protocol.ts"
import { conversation } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { say } from "../support/steps.ts"

const ours: ReadonlyArray<string> = Object.values(ToolName)

/** pi-context's part of a request, as the provider receives it: its tools' definitions, and the boot. */
const oursIn = (h: Harness, index: number) => {
  const request = h.requests[index]!
  const tools = getCurrentTools(request.messages as never).filter((tool) => ours.includes(tool.name))
  const toolsJson = JSON.stringify(tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })))
  const boot = conversation(request).find((line) => line.startsWith("user: ## Context window"))!.slice("user: ".length)
  return { names: tools.map((tool) => tool.name), tools: Math.ceil(toolsJson.length / 4), boot: Math.ceil(boot.length / 4) }
}

const statusOverhead = async (h: Harness) => {
  await h.prompt("/pi-context status")
  const [, total, tools, boot] = /adds about ([\d,]+) tokens to each request of this window: its tools ([\d,]+), the boot ([\d,]+)/
    .exec(h.notices.at(-1)!.message)!.map((figure) => Number(figure.replaceAll(",", "")))
  return { total, tools, boot }
}

describe("what pi-context adds to each request", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("/pi-context status says it, as the requests carry it: its tools and the boot, before and after a reset", async () => {
    h = await createHarness({ systemPrompt: null })
    h.script([say("one"), say("two")])
    await h.prompt("hello")
    const first = oursIn(h, 0)
    expect(first.names).not.toContain(ToolName.historySearch)
    expect(await statusOverhead(h)).toEqual({ total: first.tools + first.boot, tools: first.tools, boot: first.boot })
    // The first window's share stays small: the bar is 1,200 tokens over Pi alone (bench/overhead.ts measures it).
    expect(first.tools + first.boot).toBeLessThan(1_200)

    await h.prompt("/wipe-memory")
    await h.prompt("go on")
    const after = oursIn(h, 1)
    expect(after.names).toContain(ToolName.historySearch)
    expect(await statusOverhead(h)).toEqual({ total: after.tools + after.boot, tools: after.tools, boot: after.boot })
  })
})
