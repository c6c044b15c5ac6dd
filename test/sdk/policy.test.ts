import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { afterEach, describe, expect, it } from "vitest"
import { createPiContext } from "../../src/main.ts"
import { kinds } from "../support/entries.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"

const say = (text: string) => fauxAssistantMessage(text)
const filler = (tokens: number) => `z ${"x".repeat(tokens * 4)}`

describe("policy from an SDK host, and Pi's automatic compaction", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("an injected policy replaces the settings files and is resolved live on every decision", async () => {
    let warningLine = 30_000
    h = await createHarness({
      loadPackage: false,
      extraExtensions: [createPiContext({ policy: () => ({ guidanceLine: 50_000, warningLine, hardLine: 10_000 }) })]
    })
    h.script([say("hi")])
    await h.prompt("hello")
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toMatch(/warning line: 30,000 tokens left \(set by the injected policy/)
    warningLine = 20_000
    await h.prompt("/pi-context status")
    expect(h.notices.at(-1)!.message).toMatch(/warning line: 20,000 tokens left \(set by the injected policy/)
  })

  it("Pi's automatic compaction is cancelled on a full window, with one notice per window", async () => {
    // automaticReset off, so pi-context does not reset first and Pi's own threshold compaction is attempted.
    h = await createHarness({
      contextWindow: 10_000,
      loadPackage: false,
      extraExtensions: [createPiContext({ policy: { automaticReset: false, guidanceLine: 3_000, warningLine: 2_000, hardLine: 1_000 } })],
      settings: { compaction: { enabled: true, reserveTokens: 2_000, keepRecentTokens: 1 } }
    })
    h.script([say("one"), say("two")])
    await h.prompt(filler(8_000))
    await h.prompt(filler(200))
    expect(kinds(h.entries())).not.toContain("compaction")
    const cancelled = h.notices.filter((n) => n.message.includes("native compaction is cancelled"))
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0]!.message).toContain("/wipe-memory")
  })
})
