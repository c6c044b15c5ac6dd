import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { type SessionSignals, signalsReport, windowBootText, type WindowSignals } from "../../src/window/signals.ts"
import { type RawEntry, userMessageText } from "../../src/kernel/entries.ts"
import { isAutomaticSource, type WindowFacts } from "../../src/kernel/facts.ts"
import { messageOfRole } from "../../src/kernel/messageOfRole.ts"
import { CustomType, ToolName } from "../../src/kernel/protocol.ts"
import { windowActivity } from "../../src/window/checkpoint.ts"
import { endLabel } from "../../src/window/resetShown.ts"
import { estimateTokens } from "../../src/kernel/tokenCount.ts"

const signals: SessionSignals = {
  windows: [
    { w: 1, end: "hard line", checkpointWritten: true, filesReread: 0, commandsRerun: 0, userRepeated: false, peakTokens: 20_000, turns: 12, tokensAvoided: 36_384, cacheReadTokens: 0 },
    { w: 2, end: "open", checkpointWritten: false, notesReadAfterReset: false, filesReread: 2, commandsRerun: 0, userRepeated: false, bootTokens: 600, peakTokens: 5_000, turns: 3, cacheReadTokens: 0 }
  ],
  totals: { resets: 1, compactionPoints: 1, checkpointed: 1, notesReadAfterReset: 0, filesReread: 2, commandsRerun: 0, userRepeated: 0, tokensAvoided: 36_384, cacheReadTokens: 0 }
}

describe("the reset report's text", () => {
  it("gives a line a window and the totals, pricing the summaries avoided at the model's input price when it has one", () => {
    const text = signalsReport(signals, { name: "anthropic/claude-sonnet-4-6", inputPrice: 3 })
    assert.include(text, "w1 (ended by hard line) · checkpointed · peak 20,000 · 12 turns")
    // With the window's size known, each line starts with a small bar of its peak.
    const barred = signalsReport(signals, { name: "m", contextWindow: 32_000 }).split("\n")
    assert.strictEqual(barred[1], "(each bar: how full the window got at its peak, of 32,000 tokens)")
    assert.strictEqual(barred[2], "██████░░░░ w1 (ended by hard line) · checkpointed · peak 20,000 · 12 turns")
    assert.isTrue(barred[3]!.startsWith("██░░░░░░░░ w2 (open)"))
    assert.notInclude(text, "each bar")
    assert.include(text, "w2 (open) · did not read its notes · re-read 2 files · boot 600 tokens · peak 5,000 · 3 turns")
    assert.include(
      text,
      "about 36,384 tokens of compaction summaries avoided in the 1 window that reached the point where Pi would have compacted " +
        "(the hard line, an overflow or a close-out; an estimate: each one's peak plus the summary budget; about $0.11 at anthropic/claude-sonnet-4-6's input price)"
    )
    assert.include(signalsReport(signals), "plus the summary budget)")
    // Counts take their noun's number: "1 command", never "1 commands".
    assert.include(text, "1 of 1 window checkpointed before their reset; 0 picked up from their notes; 2 files re-read, 0 commands rerun, 0 requests you repeated")
    const once = signalsReport({ ...signals, totals: { ...signals.totals, commandsRerun: 1, userRepeated: 1, filesReread: 1 } })
    assert.include(once, "1 file re-read, 1 command rerun, 1 request you repeated")
  })

  it("counts no compaction avoided for resets that came before Pi would have compacted, and says so", () => {
    const early: SessionSignals = {
      windows: [
        { ...signals.windows[0]!, end: "/wipe-memory", tokensAvoided: undefined } as never,
        signals.windows[1]!
      ],
      totals: { ...signals.totals, compactionPoints: 0, tokensAvoided: 0 }
    }
    const text = signalsReport(early, { name: "m", inputPrice: 3 })
    assert.include(text, "no compaction avoided: no window reached the point where Pi would have compacted")
    assert.notInclude(text, "$")
    const mixed = signalsReport({ ...signals, totals: { ...signals.totals, resets: 3 } })
    assert.include(mixed, "in the 1 window that reached the point where Pi would have compacted")
    assert.include(mixed, "the other 2 resets came before that point, where Pi would not have compacted yet")
    assert.include(signalsReport({ ...signals, totals: { ...signals.totals, resets: 2 } }), "; the other reset came before that point, where")
  })
})

describe("the reset signals", () => {
  let n = 0
  const entry = (message: unknown) => ({ type: "message", id: `e${++n}`, parentId: null, timestamp: "", message }) as never
  const user = (text: string) => entry({ role: "user", content: [{ type: "text", text }] })
  const reply = (cacheRead: number) => entry({ role: "assistant", content: [{ type: "text", text: "ok" }], stopReason: "stop", usage: { input: 10, output: 5, cacheRead, cacheWrite: 0, totalTokens: 15 + cacheRead } })
  const fact = (ordinal: number, open: boolean) =>
    ({ id: `w${ordinal}`, ordinal, isRoot: ordinal === 1, startedAt: 0, end: open ? { _tag: "Open" } : { _tag: "Reset", source: "command", at: 0 }, lastActivityAt: 0, turns: 1, peakTokens: 1_000, notesWritten: [], bootTokens: null }) as never

  it("counts the provider's cache reads per window, and a request the user makes again in a later window", async () => {
    const { sessionSignals } = await import("../../src/window/signals.ts")
    const signals = sessionSignals([{ entries: [user("fix it"), reply(300), reply(200)] }, { entries: [user("fix it"), reply(50)] }], [fact(1, false), fact(2, true)], 16_384)
    assert.deepStrictEqual(signals.windows.map((w) => w.cacheReadTokens), [500, 50])
    assert.deepStrictEqual(signals.windows.map((w) => w.userRepeated), [false, true])
    assert.strictEqual(signals.totals.cacheReadTokens, 550)
  })

  it("counts a compaction avoided only for a window that reached the point where Pi would have compacted", async () => {
    const { sessionSignals } = await import("../../src/window/signals.ts")
    const ended = (ordinal: number, source: string) =>
      ({ ...(fact(ordinal, false) as object), end: { _tag: "Reset", source, at: 0 } }) as never
    const sources = ["command", "tool", "hard-line", "close-out", "overflow", "unknown"]
    const signals = sessionSignals(
      [...sources.map(() => ({ entries: [reply(0)] })), { entries: [reply(0)] }],
      [...sources.map((source, i) => ended(i + 1, source)), fact(sources.length + 1, true)],
      16_384
    )
    assert.deepStrictEqual(signals.windows.map((w) => w.tokensAvoided), [undefined, undefined, 17_384, 17_384, 17_384, undefined, undefined])
    assert.strictEqual(signals.totals.tokensAvoided, 3 * 17_384)
    assert.strictEqual(signals.totals.compactionPoints, 3)
    assert.strictEqual(signals.totals.resets, 6)
  })

  it("says whether a window picked up from its notes only once its model made a call", async () => {
    const { sessionSignals } = await import("../../src/window/signals.ts")
    const call = (name: string, args: object) => entry({ role: "assistant", content: [{ type: "toolCall", id: `c${++n}`, name, arguments: args }], stopReason: "toolUse" })
    const first = { entries: [user("go"), reply(0)] }
    const boot = { type: "custom_message", id: `b${++n}`, parentId: null, timestamp: "", customType: "pi-context/boot", content: "Latest note: plan.md\n> next", display: false, details: { windowId: "w2" } } as never
    // The boot quoted the latest note and the model only answered: it did not visibly pick up, nor visibly not.
    const quiet = sessionSignals([first, { entries: [boot, user("and?"), reply(0)] }], [fact(1, false), fact(2, true)], 0)
    assert.isUndefined(quiet.windows[1]!.notesReadAfterReset)
    assert.strictEqual(quiet.totals.notesReadAfterReset, 0)
    // No reply yet: nothing to say.
    const opened = sessionSignals([first, { entries: [boot] }], [fact(1, false), { ...(fact(2, true) as object), turns: 0 } as never], 0)
    assert.isUndefined(opened.windows[1]!.notesReadAfterReset)
    // Once it makes a call, the quoted note counts as picked up.
    const worked = sessionSignals([first, { entries: [boot, call("bash", { command: "ls" })] }], [fact(1, false), fact(2, true)], 0)
    assert.isTrue(worked.windows[1]!.notesReadAfterReset)
    const read = sessionSignals([first, { entries: [call("notes_read", { address: "MAP" })] }], [fact(1, false), fact(2, true)], 0)
    assert.isTrue(read.windows[1]!.notesReadAfterReset)
    const other = sessionSignals([first, { entries: [call("bash", { command: "ls" })] }], [fact(1, false), fact(2, true)], 0)
    assert.isFalse(other.windows[1]!.notesReadAfterReset)
  })
})

/**
 * The form sessionSignals had before it read each window once: the window
 * before's files and commands were rebuilt for every file and command of the
 * current one (quadratic in a window). Kept here only as the reference the
 * linear form must agree with.
 */
const quadraticSignals = (
  windows: ReadonlyArray<{ readonly entries: ReadonlyArray<RawEntry> }>,
  facts: ReadonlyArray<WindowFacts>,
  summaryBudget: number
): SessionSignals => {
  type Call = { readonly name: string; readonly args: Record<string, unknown> }
  const callsOf = (entries: ReadonlyArray<RawEntry>): ReadonlyArray<Call> =>
    entries.flatMap((entry) => {
      const message = messageOfRole<{ readonly role?: unknown; readonly content?: unknown }>(entry, "assistant")
      if (message === undefined || !Array.isArray(message.content)) return []
      return (message.content as ReadonlyArray<{ readonly type?: unknown; readonly name?: unknown; readonly arguments?: unknown }>).flatMap((part) =>
        part.type === "toolCall" && typeof part.name === "string"
          ? [{ name: part.name, args: typeof part.arguments === "object" && part.arguments !== null ? part.arguments as Record<string, unknown> : {} }]
          : []
      )
    })
  const stringArg = (call: Call, key: string) => (typeof call.args[key] === "string" ? (call.args[key] as string) : undefined)
  const filesRead = (calls: ReadonlyArray<Call>) => new Set(calls.flatMap((call) => (call.name === "read" && stringArg(call, "path") !== undefined ? [stringArg(call, "path")!] : [])))
  const commandsRun = (calls: ReadonlyArray<Call>) =>
    new Set(calls.flatMap((call) => (call.name === "bash" && stringArg(call, "command") !== undefined ? [stringArg(call, "command")!.trim()] : [])))
  const bootQuotedLatest = (boot: string | undefined) =>
    boot !== undefined && /^Latest note: /m.test(boot) && !/^\(Latest note cut at /m.test(boot) && !/^Latest note: .*left out for the budget/m.test(boot)
  const cacheReads = (entries: ReadonlyArray<RawEntry>) =>
    entries.reduce((sum, entry) => {
      const usage = messageOfRole<{ readonly role?: unknown; readonly usage?: { readonly cacheRead?: unknown } }>(entry, "assistant")?.usage
      return sum + (typeof usage?.cacheRead === "number" ? usage.cacheRead : 0)
    }, 0)
  const userTexts = (entries: ReadonlyArray<RawEntry>) =>
    entries.flatMap((entry) => {
      const text = userMessageText(entry)?.trim()
      return text === undefined || text === "" ? [] : [text]
    })
  const said = new Set<string>()
  const signals = windows.map((window, index): WindowSignals => {
    const fact = facts[index]!
    const calls = callsOf(window.entries)
    const previous = index === 0 ? undefined : callsOf(windows[index - 1]!.entries)
    const began = index > 0
    const boot = windowBootText({ entries: window.entries, id: fact.id, isRoot: fact.isRoot })
    const texts = userTexts(window.entries)
    const userRepeated = began && texts.some((text) => said.has(text))
    for (const text of texts) said.add(text)
    // Picked up once the model made a call; before its first reply, or after a boot that quoted the latest note with no call, unknown.
    const pickedUp = calls.length > 0
      ? calls.slice(0, 3).some((call) => call.name === ToolName.notesRead) || bootQuotedLatest(boot)
      : fact.turns === 0 || bootQuotedLatest(boot) ? undefined : false
    const reread = previous === undefined ? 0 : [...filesRead(calls)].filter((file) => filesRead(previous).has(file)).length
    const rerun = previous === undefined ? 0 : [...commandsRun(calls)].filter((command) => commandsRun(previous).has(command)).length
    const compactionPoint = fact.end._tag === "Reset" && fact.end.source !== "unknown" && isAutomaticSource(fact.end.source)
    return {
      w: fact.ordinal,
      end: endLabel(fact.end),
      checkpointWritten: windowActivity(window.entries).sessionCheckpoint,
      ...(began && pickedUp !== undefined ? { notesReadAfterReset: pickedUp } : {}),
      ...(began ? { bootTokens: boot === undefined ? 0 : estimateTokens(boot) } : {}),
      filesReread: reread,
      commandsRerun: rerun,
      userRepeated,
      peakTokens: fact.peakTokens,
      turns: fact.turns,
      ...(compactionPoint && fact.peakTokens !== null ? { tokensAvoided: fact.peakTokens + summaryBudget } : {}),
      cacheReadTokens: cacheReads(window.entries)
    }
  })
  const count = (test: (signals: WindowSignals) => boolean) => signals.filter(test).length
  return {
    windows: signals,
    totals: {
      resets: count((s) => s.end !== "open"),
      compactionPoints: count((s) => s.tokensAvoided !== undefined),
      checkpointed: count((s) => s.end !== "open" && s.checkpointWritten),
      notesReadAfterReset: count((s) => s.notesReadAfterReset === true),
      filesReread: signals.reduce((sum, s) => sum + s.filesReread, 0),
      commandsRerun: signals.reduce((sum, s) => sum + s.commandsRerun, 0),
      userRepeated: count((s) => s.userRepeated),
      tokensAvoided: signals.reduce((sum, s) => sum + (s.tokensAvoided ?? 0), 0),
      cacheReadTokens: signals.reduce((sum, s) => sum + s.cacheReadTokens, 0)
    }
  }
}

describe("the reset signals, read once a window", () => {
  const text = (words: ReadonlyArray<string>) => fc.constantFrom(...words)
  /** One entry of a window, from the few shapes the signals read (and some they must ignore). */
  const entryShape = fc.oneof(
    fc.record({ kind: fc.constant("user" as const), text: text(["fix it", " fix it ", "go on", "", "why?"]) }),
    fc.record({
      kind: fc.constant("calls" as const),
      calls: fc.array(
        fc.oneof(
          fc.record({ name: fc.constant("read"), arguments: fc.oneof(fc.record({ path: text(["a.ts", "b.ts", "c.ts", "d.ts"]) }), fc.constant({ path: 7 })) }),
          fc.record({ name: fc.constant("bash"), arguments: fc.record({ command: text(["ls", " ls", "npm test", "git status "]) }) }),
          fc.record({ name: fc.constant(ToolName.notesRead), arguments: fc.constant({ address: "MAP" }) }),
          fc.record({ name: fc.constant("write"), arguments: fc.constant({ path: "a.ts" }) })
        ),
        { maxLength: 4 }
      ),
      cacheRead: fc.option(fc.nat({ max: 500 }), { nil: undefined })
    }),
    fc.record({ kind: fc.constant("noteWritten" as const), address: text(["checkpoint", "@user/prefs", "MAP"]), isError: fc.boolean() }),
    fc.record({ kind: fc.constant("boot" as const), own: fc.boolean(), text: text(["Latest note: checkpoint\nwhole", "Latest note: x left out for the budget", "no note"]) })
  )
  const sessionShape = fc.array(fc.array(entryShape, { maxLength: 25 }), { minLength: 1, maxLength: 8 })

  it("works a window out again when the windows before it are not those it was read after", async () => {
    const { sessionSignals } = await import("../../src/window/signals.ts")
    let n = 0
    const user = (text: string) => ({ type: "message", id: `r${++n}`, parentId: null, timestamp: "", message: { role: "user", content: [{ type: "text", text }] } }) as RawEntry
    const fact = (id: string, ordinal: number, open: boolean) =>
      ({ id, ordinal, isRoot: ordinal === 1, startedAt: 0, end: open ? { _tag: "Open" } : { _tag: "Reset", source: "tool", at: 0 }, lastActivityAt: 0, turns: 1, peakTokens: null, notesWritten: [], bootTokens: null }) as WindowFacts
    const first = { entries: [user("fix it")] }
    const other = { entries: [user("go on")] }
    const ended = { entries: [user("fix it")] }
    const open = { entries: [user("why?")] }
    const after = (root: typeof first) => sessionSignals([root, ended, open], [fact("a", 1, false), fact("b", 2, false), fact("c", 3, true)], 0).windows.map((w) => w.userRepeated)
    assert.deepStrictEqual(after(first), [false, true, false])
    assert.deepStrictEqual(after(other), [false, false, false])
  })

  it("gives what the quadratic form gave, on random windows", async () => {
    const { sessionSignals } = await import("../../src/window/signals.ts")
    fc.assert(
      fc.property(sessionShape, fc.nat({ max: 20_000 }), (shape, summaryBudget) => {
        let n = 0
        const raw = (fields: Record<string, unknown>) => ({ id: `e${++n}`, parentId: null, timestamp: "", ...fields }) as RawEntry
        const windows = shape.map((shapes, index) => {
          const id = index === 0 ? "pcx:s:root" : `pcx:s:w${index + 1}`
          const entries: Array<RawEntry> = index === 0 ? [] : [raw({ type: "custom", customType: CustomType.resetMarker, data: { windowId: id } })]
          for (const entry of shapes) {
            if (entry.kind === "user") entries.push(raw({ type: "message", message: { role: "user", content: [{ type: "text", text: entry.text }] } }))
            else if (entry.kind === "calls") {
              entries.push(raw({
                type: "message",
                message: {
                  role: "assistant",
                  content: entry.calls.map((call, k) => ({ type: "toolCall", id: `c${n}-${k}`, ...call })),
                  ...(entry.cacheRead === undefined ? {} : { usage: { cacheRead: entry.cacheRead } })
                }
              }))
            } else if (entry.kind === "noteWritten") {
              entries.push(raw({ type: "message", message: { role: "toolResult", toolName: ToolName.notesWrite, isError: entry.isError, details: { address: entry.address }, content: [] } }))
            } else {
              entries.push(raw({ type: "custom_message", customType: CustomType.boot, content: entry.text, display: false, details: { windowId: entry.own ? id : "pcx:s:other" } }))
            }
          }
          return { entries, id }
        })
        const factOf = (id: string, index: number, open: boolean): WindowFacts => ({
          id,
          ordinal: index + 1,
          isRoot: index === 0,
          startedAt: undefined,
          end: open ? { _tag: "Open" } : { _tag: "Reset", source: "tool", at: undefined },
          lastActivityAt: undefined,
          turns: index,
          peakTokens: index % 3 === 0 ? null : 1_000 * index,
          notesWritten: [],
          bootTokens: null
        })
        const facts = windows.map(({ id }, index) => factOf(id, index, index === windows.length - 1))
        const expected = quadraticSignals(windows, facts, summaryBudget)
        assert.deepStrictEqual(sessionSignals(windows, facts, summaryBudget), expected)
        // Asked again, as every reset and report does, with the windows read before: the same.
        assert.deepStrictEqual(sessionSignals(windows, facts, summaryBudget), expected)
        // The session as it grows, one reset at a time (a report between them): the ended windows read at earlier
        // resets, the one that just ended as the Window room gives it, a new array (or, once in two, the same one).
        const grown: Array<{ readonly entries: ReadonlyArray<RawEntry> }> = []
        windows.forEach((window, index) => {
          if (index > 0 && (index + shape.length) % 2 === 0) grown[index - 1] = { entries: [...grown[index - 1]!.entries] }
          grown.push({ entries: window.entries })
          const grownFacts = grown.map((_, at) => factOf(windows[at]!.id, at, at === index))
          const reference = quadraticSignals(grown, grownFacts, summaryBudget)
          assert.deepStrictEqual(sessionSignals(grown, grownFacts, summaryBudget), reference)
          assert.deepStrictEqual(sessionSignals(grown, grownFacts, summaryBudget), reference)
        })
      }),
      { numRuns: 300, seed: 43 }
    )
  })
})
