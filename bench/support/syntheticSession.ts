/**
 * The synthetic sessions the benchmarks share (bench/projection.ts,
 * bench/hooks.ts, bench/memory.ts, bench/resetEdits.ts): turns of tool work
 * in one chain, cut into windows.
 *
 * With pi-context (`withMarkers`), each boundary is what a reset writes: the
 * marker, one context edit for each entry Pi's own context still holds (the
 * ending window's messages, its boot and its continuation), the hidden boot
 * and the continuation; the session starts with a root boot. Pi alone, on
 * the same turns, writes its own compaction at each boundary (retain-none:
 * its context starts after it). `boundaries: "compaction"` gives pi-context's
 * marker, boot and continuation after such a compaction instead of the
 * edits, the shape resets wrote before they kept the chat on screen: what
 * Pi's per-request work costs if a reset could leave the ended window out
 * of Pi's context with one entry.
 *
 * A module, not a benchmark: it does nothing when run.
 */
import { randomUUID } from "node:crypto"
import type { SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent"
import { isMarkerEntry, type RawEntry } from "../../src/kernel/entries.ts"
import { CustomType } from "../../src/kernel/protocol.ts"
import { newWindowId, rootWindowId } from "../../src/kernel/windowId.ts"

export const ENTRIES = 50_000
export const WINDOWS = 20

export type Boundaries = "edits" | "compaction"

const words = ["parser", "config", "router", "migration", "cache", "schema", "token", "layer", "queue", "index"]

/** Messages in turn `n`: the request, the call, one to three results, the reply. */
const messagesInTurn = (n: number) => 3 + (1 + (n % 3))

/** A session being written, entry by entry, as Pi and pi-context write it. */
export const sessionWriter = (cwd: string) => {
  const sessionId = randomUUID()
  const entries: Array<Record<string, unknown>> = [{ type: "session", version: 3, id: sessionId, timestamp: new Date(0).toISOString(), cwd }]
  let leafId: string | null = null
  let clock = Date.parse("2025-01-01T00:00:00.000Z")
  let callCounter = 0
  let windowCount = 0
  /** Entries Pi's own context holds since the last boundary that a context edit may hide. */
  let held: Array<string> = []
  const append = (fields: Record<string, unknown>): string => {
    const id = entries.length.toString(16).padStart(8, "0")
    clock += 1500
    entries.push({ id, parentId: leafId, timestamp: new Date(clock).toISOString(), ...fields })
    leafId = id
    return id
  }
  const message = (body: Record<string, unknown>) => held.push(append({ type: "message", message: { timestamp: clock, ...body } }))
  const systemMessage = { role: "system", content: "", sections: { preamble: "You are a scripted test model." }, timestamp: clock }
  const hidden = (customType: string, content: string, details?: unknown) =>
    held.push(append({ type: "custom_message", customType, content, display: false, ...(details === undefined ? {} : { details }) }))
  const boot = (windowId: string) => hidden(CustomType.boot, `## Context window\nCurrent window: ${windowId}\n`, { windowId })
  const output = (word: string, size: number) => {
    const line = `src/${word}/module.ts:42: export function ${word}Handler(input: string) { return input.trim() }\n`
    return line.repeat(Math.max(1, Math.round(size / line.length)))
  }
  const turn = (n: number) => {
    const word = words[n % words.length]!
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
  /** The start of a session: model and thinking level, the root boot with pi-context, Pi's system prompt. */
  const start = (withMarkers: boolean) => {
    append({ type: "model_change", provider: "faux", modelId: "faux-1" })
    append({ type: "thinking_level_change", thinkingLevel: "off" })
    if (withMarkers) boot(rootWindowId(sessionId))
    append({ type: "message", message: systemMessage })
  }
  /** One window boundary, as pi-context's reset (or, without markers, Pi's own compaction) writes it. */
  const boundary = (withMarkers: boolean, boundaries: Boundaries) => {
    windowCount++
    const windowId = newWindowId(sessionId, windowCount.toString(16).padStart(8, "0"))
    if (!withMarkers || boundaries === "compaction") {
      const compactionId = entries.length.toString(16).padStart(8, "0")
      append({
        type: "compaction",
        summary: "",
        firstKeptEntryId: compactionId,
        tokensBefore: 100_000,
        details: withMarkers ? { source: "pi-context", windowId } : {},
        fromHook: withMarkers,
        systemMessage
      })
    }
    if (!withMarkers) return void (held = [])
    append({ type: "custom", customType: CustomType.resetMarker, data: { windowId } })
    if (boundaries === "edits") for (const targetId of held) append({ type: "context_edit", targetId, replacement: null })
    held = []
    boot(windowId)
    hidden(CustomType.continuation, "Your context window was just reset.")
  }
  return {
    sessionId,
    start,
    turn,
    boundary,
    /** Entries so far, the header not counted. */
    size: () => entries.length - 1,
    done: () => entries as unknown as Array<SessionEntry>
  }
}

/**
 * How many turns, `perWindow` in each window, make about `size` entries as
 * resets write them (a window's edits are one per message, its boundary four
 * entries more): every shape of the same size gets the same turns.
 */
const planFor = (size: number) => {
  let turns = 0
  let messages = 0
  while (4 + messages * 2 + (WINDOWS - 1) * 4 < size) messages += messagesInTurn(turns++)
  return { turns, perWindow: Math.ceil(turns / WINDOWS) }
}

/**
 * A session file's entries: header, then about `size` entries as resets
 * write them, in one chain, in WINDOWS windows; without `withMarkers` (or
 * with compaction boundaries), the same turns in that shape.
 */
export const syntheticSession = (cwd: string, withMarkers: boolean, size: number = ENTRIES, boundaries: Boundaries = "edits"): Array<SessionEntry> => {
  const plan = planFor(size)
  const writer = sessionWriter(cwd)
  writer.start(withMarkers)
  for (let turnNumber = 0; turnNumber < plan.turns; turnNumber++) {
    if (turnNumber > 0 && turnNumber % plan.perWindow === 0) writer.boundary(withMarkers, boundaries)
    writer.turn(turnNumber)
  }
  return writer.done()
}

/** The window's entries, its marker first: the walk back from the leaf that `PiSession.branchTail` makes, for the benches that time it. */
export const windowFromLeaf = (manager: Pick<SessionManager, "getLeafEntry" | "getEntry">): ReadonlyArray<RawEntry> => {
  const tail: Array<RawEntry> = []
  let entry = manager.getLeafEntry() as RawEntry | undefined
  while (entry !== undefined) {
    tail.push(entry)
    if (isMarkerEntry(entry) || entry.parentId === null) break
    entry = manager.getEntry(entry.parentId as string) as RawEntry | undefined
  }
  return tail.reverse()
}
