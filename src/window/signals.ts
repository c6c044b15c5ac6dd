/**
 * How each reset went, from the session's own entries: did the model write a
 * checkpoint before its window ended, did it pick up from its notes when the
 * new window began, did it redo work (read again the files the window before
 * read, rerun its commands), did the user have to say something again, and
 * what the reset cost against what Pi's compaction would have. Pure: the
 * report command and the eval read the same figures.
 */
import { windowActivity } from "./checkpoint.ts"
import { userMessageText, type RawEntry } from "../kernel/entries.ts"
import { messageOfRole } from "../kernel/messageOfRole.ts"
import { CustomType, ToolName } from "../kernel/protocol.ts"
import { isAutomaticSource, type WindowFacts } from "../kernel/facts.ts"
import { endLabel } from "./resetShown.ts"
import { plural } from "../kernel/plural.ts"
import { estimateTokens, formatTokens } from "../kernel/tokenCount.ts"

/** One window's signals, as `/pi-context report --json` gives them. */
export interface WindowSignals {
  /** The w-number, as the windows view gives it. */
  readonly w: number
  /** How the window ended: a reset's kind, or `open`. */
  readonly end: string
  /** A note of this session's home was written in the window before it ended. */
  readonly checkpointWritten: boolean
  /**
   * In a window that began at a reset: the model picked up from its notes, by
   * reading a note or the MAP within its first three tool calls, or because
   * its boot quoted the latest note whole, once its model made a call.
   * Absent for the first window, before the window's first reply, and for a
   * model that made no call after a boot that quoted the latest note.
   */
  readonly notesReadAfterReset?: boolean
  /** Files this window read that the window before it had read. */
  readonly filesReread: number
  /** Commands this window ran that the window before it had run. */
  readonly commandsRerun: number
  /** A user message in this window repeats one from an earlier window. */
  readonly userRepeated: boolean
  /** The boot's size in tokens (four characters a token); absent for the first window. */
  readonly bootTokens?: number
  readonly peakTokens: number | null
  readonly turns: number
  /**
   * For a window that reached the point where Pi would have compacted (an
   * automatic reset: the hard line, a close-out, an overflow): the summary
   * call Pi's compaction would have made instead, its input at the window's
   * peak plus its summary budget. An estimate. A window the model or the user
   * reset earlier avoided no compaction: Pi would not have compacted yet.
   */
  readonly tokensAvoided?: number
  /** Prompt tokens the provider read from its cache in the window, where its usage says. */
  readonly cacheReadTokens: number
}

export interface SessionSignals {
  readonly windows: ReadonlyArray<WindowSignals>
  readonly totals: {
    readonly resets: number
    /** Resets at the point where Pi would have compacted: the windows `tokensAvoided` counts. */
    readonly compactionPoints: number
    readonly checkpointed: number
    readonly notesReadAfterReset: number
    readonly filesReread: number
    readonly commandsRerun: number
    readonly userRepeated: number
    readonly tokensAvoided: number
    readonly cacheReadTokens: number
  }
}

interface Call {
  readonly name: string
  readonly args: Record<string, unknown>
}

/** The tool calls of the window's replies, in order. */
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

const stringArg = (call: Call, key: string): string | undefined => (typeof call.args[key] === "string" ? (call.args[key] as string) : undefined)

const filesRead = (calls: ReadonlyArray<Call>): ReadonlySet<string> =>
  new Set(calls.flatMap((call) => (call.name === "read" && stringArg(call, "path") !== undefined ? [stringArg(call, "path")!] : [])))

const commandsRun = (calls: ReadonlyArray<Call>): ReadonlySet<string> =>
  new Set(calls.flatMap((call) => (call.name === "bash" && stringArg(call, "command") !== undefined ? [stringArg(call, "command")!.trim()] : [])))

/**
 * The boot a window's requests start from, as written into the session: a
 * reset window's own (the first with its id, right after its marker); in the
 * root window its newest, which a refresh before the model's first answer
 * puts in the first one's place (the projection's rule).
 */
export const windowBootText = (window: { readonly entries: ReadonlyArray<RawEntry>; readonly id: string; readonly isRoot: boolean }): string | undefined => {
  let found: string | undefined
  for (const entry of window.entries) {
    if (entry.type !== "custom_message" || entry.customType !== CustomType.boot) continue
    const details = entry.details as { windowId?: unknown } | undefined
    if (details?.windowId !== window.id || typeof entry.content !== "string") continue
    found = entry.content
    if (!window.isRoot) break
  }
  return found
}

/** Whether the boot carried the latest note whole, so the model had it without a call. */
const bootQuotedLatest = (boot: string | undefined): boolean =>
  boot !== undefined && /^Latest note: /m.test(boot) && !/^\(Latest note cut at /m.test(boot) && !/^Latest note: .*left out for the budget/m.test(boot)

/**
 * Whether a window that began at a reset picked up from its notes: by reading one within its first three calls, or
 * with the latest note quoted whole in its boot, once its model made a call. Before its first reply nothing is said;
 * a model that only answered, with a boot that quoted the latest note, may have picked up from it or not: unknown.
 */
const pickUp = (calls: ReadonlyArray<Call>, boot: string | undefined, replies: number): boolean | undefined => {
  if (calls.length > 0) return calls.slice(0, 3).some((call) => call.name === ToolName.notesRead) || bootQuotedLatest(boot)
  return replies === 0 || bootQuotedLatest(boot) ? undefined : false
}

const cacheReads = (entries: ReadonlyArray<RawEntry>): number =>
  entries.reduce((sum, entry) => {
    const usage = messageOfRole<{ readonly role?: unknown; readonly usage?: { readonly cacheRead?: unknown } }>(entry, "assistant")?.usage
    return sum + (typeof usage?.cacheRead === "number" ? usage.cacheRead : 0)
  }, 0)

const userTexts = (entries: ReadonlyArray<RawEntry>): ReadonlyArray<string> =>
  entries.flatMap((entry) => {
    const text = userMessageText(entry)?.trim()
    return text === undefined || text === "" ? [] : [text]
  })

/**
 * The signals of every window of the branch, oldest first (`windows` and
 * `facts` as the Window room gives them, one for one). `summaryBudget`: the
 * tokens Pi's compaction keeps for its summary (its reserve).
 */
export const sessionSignals = (
  windows: ReadonlyArray<{ readonly entries: ReadonlyArray<RawEntry> }>,
  facts: ReadonlyArray<WindowFacts>,
  summaryBudget: number
): SessionSignals => {
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
    const pickedUp = pickUp(calls, boot, fact.turns)
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

/** Cells of a window's peak bar. */
const BarCells = 10

/** A small bar of how full the window got at its peak, before its line; nothing when the window's size or its peak is unknown. */
export const peakBar = (peak: number | null, contextWindow: number | undefined): string => {
  if (peak === null || contextWindow === undefined || !(contextWindow > 0)) return ""
  const filled = Math.max(0, Math.min(BarCells, Math.round((peak / contextWindow) * BarCells)))
  return `${"█".repeat(filled)}${"░".repeat(BarCells - filled)} `
}

/** The report as text: one line a window, then the totals; `model` prices the summaries avoided at its input price, when it has one. */
export const signalsReport = (
  signals: SessionSignals,
  model?: { readonly name: string; readonly inputPrice?: number | undefined; readonly contextWindow?: number | undefined }
): string => {
  const line = (s: WindowSignals) =>
    [
      `${peakBar(s.peakTokens, model?.contextWindow)}w${s.w} (${s.end === "open" ? "open" : `ended by ${s.end}`})`,
      s.end === "open" ? undefined : s.checkpointWritten ? "checkpointed" : "no checkpoint",
      s.notesReadAfterReset === undefined ? undefined : s.notesReadAfterReset ? "picked up from its notes" : "did not read its notes",
      s.filesReread > 0 ? `re-read ${plural(s.filesReread, "file")}` : undefined,
      s.commandsRerun > 0 ? `reran ${plural(s.commandsRerun, "command")}` : undefined,
      s.userRepeated ? "you repeated a request" : undefined,
      s.bootTokens === undefined ? undefined : `boot ${formatTokens(s.bootTokens)} tokens`,
      s.peakTokens === null ? undefined : `peak ${formatTokens(s.peakTokens)}`,
      plural(s.turns, "turn")
    ].filter((part) => part !== undefined).join(" · ")
  const { totals } = signals
  const earlier = totals.resets - totals.compactionPoints
  const avoided = totals.compactionPoints === 0
    ? "no compaction avoided: no window reached the point where Pi would have compacted (the hard line, an overflow or a close-out)"
    : `about ${formatTokens(totals.tokensAvoided)} tokens of compaction summaries avoided in the ${plural(totals.compactionPoints, "window")} that reached ` +
      "the point where Pi would have compacted (the hard line, an overflow or a close-out; an estimate: each one's peak plus the summary budget" +
      (model?.inputPrice === undefined
        ? ")"
        : `; about $${((totals.tokensAvoided * model.inputPrice) / 1_000_000).toFixed(2)} at ${model.name}'s input price)`)
  const contextWindow = model?.contextWindow
  return [
    `pi-context report: ${plural(totals.resets, "reset")}`,
    ...(contextWindow !== undefined && contextWindow > 0 && signals.windows.some((s) => s.peakTokens !== null)
      ? [`(each bar: how full the window got at its peak, of ${formatTokens(contextWindow)} tokens)`]
      : []),
    ...signals.windows.map(line),
    `totals: ${totals.checkpointed} of ${plural(totals.resets, "window")} checkpointed before their reset; ${totals.notesReadAfterReset} picked up from their notes; ` +
    `${plural(totals.filesReread, "file")} re-read, ${plural(totals.commandsRerun, "command")} rerun, ${plural(totals.userRepeated, "request")} you repeated; ` +
    avoided +
    (earlier > 0 && totals.compactionPoints > 0
      ? `; ${earlier === 1 ? "the other reset" : `the other ${earlier} resets`} came before that point, where Pi would not have compacted yet`
      : "") +
    (totals.cacheReadTokens > 0 ? `; ${formatTokens(totals.cacheReadTokens)} prompt tokens read from the provider's cache` : "")
  ].join("\n")
}
