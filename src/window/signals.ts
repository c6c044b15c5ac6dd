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

/** What one window's own entries give its signals, read in one pass of them. */
interface WindowReading {
  /** Whose boot `boot` is: the window's id and whether it is the root. */
  readonly id: string
  readonly isRoot: boolean
  readonly boot: string | undefined
  readonly firstCalls: ReadonlyArray<Call>
  readonly files: ReadonlySet<string>
  readonly commands: ReadonlySet<string>
  readonly texts: ReadonlyArray<string>
  readonly checkpointWritten: boolean
  readonly cacheReadTokens: number
}

/**
 * Readings by the window's entries. The Window room keeps an ended window's
 * entries as the same array, never changed, so every report and reset reads
 * each ended window once; the open one, a new array each time it grows, is
 * read again.
 */
const readings = new WeakMap<ReadonlyArray<RawEntry>, WindowReading>()

const readWindow = (entries: ReadonlyArray<RawEntry>, fact: WindowFacts): WindowReading => {
  const known = readings.get(entries)
  if (known !== undefined && known.id === fact.id && known.isRoot === fact.isRoot) return known
  const calls = callsOf(entries)
  const reading: WindowReading = {
    id: fact.id,
    isRoot: fact.isRoot,
    boot: windowBootText({ entries, id: fact.id, isRoot: fact.isRoot }),
    firstCalls: calls.slice(0, 3),
    files: filesRead(calls),
    commands: commandsRun(calls),
    texts: userTexts(entries),
    checkpointWritten: windowActivity(entries).sessionCheckpoint,
    cacheReadTokens: cacheReads(entries)
  }
  readings.set(entries, reading)
  return reading
}

/**
 * What an ended window's signals take from the windows before it, worked out
 * once: the windows before it are fixed by its own entries. They are checked
 * all the same, one link a window (the window before, as it was then read
 * after its own), so a reading reused elsewhere is worked out again.
 */
interface EndedReading {
  /** How many windows came before it. */
  readonly position: number
  readonly previous: EndedReading | undefined
  readonly repeated: boolean
  /**
   * The user's requests up to and including this window, while it is the
   * last ended window read: the next one to end takes the set over and adds
   * its own, so a reset adds one window's requests rather than gathering the
   * session's.
   */
  said: Set<string> | undefined
}

const endedReadings = new WeakMap<WindowReading, EndedReading>()

const countShared = (mine: ReadonlySet<string>, theirs: ReadonlySet<string>): number => {
  let shared = 0
  for (const item of mine) if (theirs.has(item)) shared++
  return shared
}

/**
 * The signals of every window of the branch, oldest first (`windows` and
 * `facts` as the Window room gives them, one for one). `summaryBudget`: the
 * tokens Pi's compaction keeps for its summary (its reserve). Each window's
 * entries are read once, then compared with the window before it: linear in
 * the branch. An ended window is read once per process, and what it takes
 * from the windows before it (a request repeated) is worked out once, so a
 * reset or a report after the first costs the open window and a step per
 * ended one.
 */
export const sessionSignals = (
  windows: ReadonlyArray<{ readonly entries: ReadonlyArray<RawEntry> }>,
  facts: ReadonlyArray<WindowFacts>,
  summaryBudget: number
): SessionSignals => {
  const read: Array<WindowReading> = []
  /** Per window read: what it took from the windows before it, when that holds for the windows read before it here. */
  const links: Array<EndedReading | undefined> = []
  /** The requests of the windows read so far, once a window needs them; `holder`: the ended window that keeps them for the next call. */
  let said: Set<string> | undefined
  let holder: EndedReading | undefined
  let previous: WindowReading | undefined
  const signals = windows.map((window, index): WindowSignals => {
    const fact = facts[index]!
    const reading = readWindow(window.entries, fact)
    const began = index > 0
    const last = index === windows.length - 1
    const known = endedReadings.get(reading)
    const link = links[index - 1]
    const settled = known !== undefined && known.position === index && (index === 0 || (link !== undefined && known.previous === link))
    if (!settled && began && said === undefined) {
      // The set the window before keeps, when it was kept for these windows; else gathered once.
      const kept = link
      if (kept?.said !== undefined) {
        said = kept.said
        holder = kept
      } else said = new Set(read.flatMap((r) => r.texts))
    }
    const userRepeated = settled ? known.repeated : began && reading.texts.some((text) => said!.has(text))
    const ended: EndedReading | undefined = fact.end._tag !== "Reset"
      ? undefined
      : settled
      ? known
      : { position: index, previous: link, repeated: userRepeated, said: undefined }
    if (ended !== undefined && !settled) endedReadings.set(reading, ended)
    // No window after the last needs its requests; past the others, the set grows and moves to this window.
    if (!last && (said !== undefined || (!began && !settled))) {
      if (holder !== undefined) holder.said = undefined
      said ??= new Set()
      for (const text of reading.texts) said.add(text)
      holder = ended
      if (ended !== undefined) ended.said = said
    }
    read.push(reading)
    links.push(ended)
    const pickedUp = pickUp(reading.firstCalls, reading.boot, fact.turns)
    const reread = previous === undefined ? 0 : countShared(reading.files, previous.files)
    const rerun = previous === undefined ? 0 : countShared(reading.commands, previous.commands)
    previous = reading
    const compactionPoint = fact.end._tag === "Reset" && fact.end.source !== "unknown" && isAutomaticSource(fact.end.source)
    return {
      w: fact.ordinal,
      end: endLabel(fact.end),
      checkpointWritten: reading.checkpointWritten,
      ...(began && pickedUp !== undefined ? { notesReadAfterReset: pickedUp } : {}),
      ...(began ? { bootTokens: reading.boot === undefined ? 0 : estimateTokens(reading.boot) } : {}),
      filesReread: reread,
      commandsRerun: rerun,
      userRepeated,
      peakTokens: fact.peakTokens,
      turns: fact.turns,
      ...(compactionPoint && fact.peakTokens !== null ? { tokensAvoided: fact.peakTokens + summaryBudget } : {}),
      cacheReadTokens: reading.cacheReadTokens
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
