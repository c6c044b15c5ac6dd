import { assert, describe, it } from "@effect/vitest"
import type { Message, TranscriptContext } from "@earendil-works/pi-ai"
import { probeTurnovers } from "../../eval/harness/probe.ts"

const request = (...texts: ReadonlyArray<string>): TranscriptContext =>
  ({ messages: texts.map((text): Message => ({ role: "user", content: text, timestamp: 0 })) }) as TranscriptContext
const boot = (window: string) => `## Context window\nCurrent window: ${window}\n`

describe("continuity probes", () => {
  it("grade each turnover on the facts the run had been given before it, not on ones the user had not said yet", async () => {
    const facts = [{ name: "first ticket", pattern: /OPS-1111/ }, { name: "second ticket", pattern: /OPS-2222/ }]
    const requests = [
      request("Change 1 (ticket OPS-1111)"),
      // The first reset: only the first ticket had been given.
      request(boot("w2"), "continue"),
      request(boot("w2"), "continue", "Change 2 (ticket OPS-2222)"),
      // The second: both had.
      request(boot("w3"), "continue")
    ]
    // A model that remembers the first ticket only.
    const probes = await probeTurnovers(requests, facts, () => "the task has ticket OPS-1111")
    assert.deepStrictEqual(probes.map((probe) => [probe.turnover, probe.recall]), [[1, 1], [2, 0.5]])
  })
})
