/**
 * The synthetic session the hook benchmarks share (bench/projection.ts,
 * bench/hooks.ts): about 50,000 entries in one chain, 20 windows of tool work.
 * Each of the 19 boundaries is a retain-none compaction entry (Pi's own
 * context starts after it, as after a native compaction); with `withMarkers`
 * it is followed by pi-context's marker, hidden boot and continuation, and the
 * session starts with a root boot.
 *
 * A module, not a benchmark: it does nothing when run.
 */
import { randomUUID } from "node:crypto"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { CustomType } from "../../src/kernel/protocol.ts"
import { newWindowId, rootWindowId } from "../../src/kernel/windowId.ts"

export const ENTRIES = 50_000
export const WINDOWS = 20

const words = ["parser", "config", "router", "migration", "cache", "schema", "token", "layer", "queue", "index"]

const entriesInTurn = (n: number) => 3 + (1 + (n % 3))

/** How many turns make `size` entries with pi-context's boundaries, and how many turns per window: both sessions use the same. */
const planFor = (size: number) => {
  let turns = 0
  let entries = 4
  while (entries < size - 4 * (WINDOWS - 1)) entries += entriesInTurn(turns++)
  return { turns, perWindow: Math.ceil(turns / WINDOWS) }
}

/** A session file's entries: header, then about `size` entries in one chain; `withMarkers` adds pi-context's boundary entries. */
export const syntheticSession = (cwd: string, withMarkers: boolean, size: number = ENTRIES): Array<SessionEntry> => {
  const plan = planFor(size)
  const sessionId = randomUUID()
  const entries: Array<Record<string, unknown>> = [{ type: "session", version: 3, id: sessionId, timestamp: new Date(0).toISOString(), cwd }]
  let leafId: string | null = null
  let clock = Date.parse("2025-01-01T00:00:00.000Z")
  let callCounter = 0
  const append = (fields: Record<string, unknown>): void => {
    const id = entries.length.toString(16).padStart(8, "0")
    clock += 1500
    entries.push({ id, parentId: leafId, timestamp: new Date(clock).toISOString(), ...fields })
    leafId = id
  }
  const message = (body: Record<string, unknown>) => append({ type: "message", message: { timestamp: clock, ...body } })
  const systemMessage = { role: "system", content: "", sections: { preamble: "You are a scripted test model." }, timestamp: clock }
  const boot = (windowId: string) =>
    append({ type: "custom_message", customType: CustomType.boot, content: `## Context window\nCurrent window: ${windowId}\n`, display: false, details: { windowId } })
  const output = (word: string, size: number) => {
    const line = `src/${word}/module.ts:42: export function ${word}Handler(input: string) { return input.trim() }\n`
    return line.repeat(Math.max(1, Math.round(size / line.length)))
  }
  const turn = (n: number, word: string) => {
    message({ role: "user", content: [{ type: "text", text: `Please look at the ${word} code (request ${n}).` }] })
    const ids = Array.from({ length: 1 + (n % 3) }, () => `call_${++callCounter}`)
    message({
      role: "assistant",
      content: [
        { type: "text", text: `I will inspect the ${word} module.` },
        ...ids.map((id, i) => ({ type: "toolCall", id, name: i === 0 ? "read" : "bash", arguments: { path: `src/${word}/module.ts`, n } }))
      ],
      api: "faux",
      provider: "faux",
      model: "faux-1",
      usage: { input: 1000, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 1050, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse"
    })
    ids.forEach((id, i) =>
      message({
        role: "toolResult",
        toolCallId: id,
        toolName: i === 0 ? "read" : "bash",
        content: [{ type: "text", text: output(word, 200 + (n * 37) % 800) }],
        details: {},
        isError: false
      })
    )
    message({
      role: "assistant",
      content: [{ type: "text", text: `The ${word} module looks fine; request ${n} done.` }],
      api: "faux",
      provider: "faux",
      model: "faux-1",
      usage: { input: 1200, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 1220, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop"
    })
  }

  append({ type: "model_change", provider: "faux", modelId: "faux-1" })
  append({ type: "thinking_level_change", thinkingLevel: "off" })
  if (withMarkers) boot(rootWindowId(sessionId))
  message(systemMessage)
  let window = 0
  for (let turnNumber = 0; turnNumber < plan.turns; turnNumber++) {
    if (turnNumber > 0 && turnNumber % plan.perWindow === 0) {
      window++
      const windowId = newWindowId(sessionId, window.toString(16).padStart(8, "0"))
      const compactionId = entries.length.toString(16).padStart(8, "0")
      append({
        type: "compaction",
        summary: "",
        firstKeptEntryId: compactionId,
        tokensBefore: 100_000,
        details: { source: "pi-context", windowId },
        fromHook: true,
        systemMessage
      })
      if (withMarkers) {
        append({ type: "custom", customType: CustomType.resetMarker, data: { windowId } })
        boot(windowId)
        append({ type: "custom_message", customType: CustomType.continuation, content: "Your context window was just reset.", display: false })
      }
    }
    turn(turnNumber, words[turnNumber % words.length]!)
  }
  return entries as unknown as Array<SessionEntry>
}
