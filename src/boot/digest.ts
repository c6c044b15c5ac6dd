import { isRecord } from "../kernel/record.ts"
import { lineBreak, quotedLines } from "../kernel/names.ts"
import { plural } from "../kernel/plural.ts"
import { type RawEntry, userMessageText } from "../kernel/entries.ts"
import { draftsOfEntry } from "../history/events.ts"
import { estimateTokens } from "../kernel/tokenCount.ts"

export interface WindowDigest {
  /** Markdown to append to the continuation; says visibly what the budget cut. Empty string when nothing to say. */
  readonly text: string
  /** estimateTokens(text) (kernel/tokenCount.ts), always <= budgetTokens. */
  readonly tokens: number
  /** What the budget left out, for the trace (e.g. ["2 user requests", "3 files"]). */
  readonly cut: ReadonlyArray<string>
}

/** Code points of each earlier request, command and the last reply quoted. */
export const RequestExcerptLimit = 200
export const CommandExcerptLimit = 200
export const ReplyExcerptLimit = 600

/** What one window did, read from its entries: the raw material of the digest. */
export interface WindowFacts {
  /** The user's requests other than the pending one, newest first. */
  readonly requests: ReadonlyArray<string>
  /** Paths written or edited by Pi's `write`/`edit` tools, the most recently touched first. */
  readonly files: ReadonlyArray<{ readonly path: string; readonly tools: ReadonlyArray<string> }>
  /** `bash` commands that failed or were aborted, one per command, the most recent first. */
  readonly unsuccessful: ReadonlyArray<UnsuccessfulCommand>
  readonly lastReply: string | undefined
}

/** One command's unsuccessful runs: each distinct status with how often it happened, the most recent first. */
export interface UnsuccessfulCommand {
  readonly command: string
  readonly outcomes: ReadonlyArray<{ readonly status: string; readonly count: number }>
}

/** The status of a command the user stopped (Escape, or `!` cancelled): not a failure of the command. */
export const AbortedStatus = "aborted"

const stringArg = (args: unknown, key: string): string | undefined =>
  isRecord(args) && typeof args[key] === "string" && args[key] !== "" ? args[key] : undefined

const exitPattern = /exited with code (-?\d+)/

/**
 * Pi's bash tool ends an aborted run with "Command aborted"; a call the agent
 * loop skipped because the run was already aborted reads "Operation aborted".
 */
const abortedStatusLines = new Set(["Command aborted", "Operation aborted"])

/** The status line of a failed bash result: Pi puts it last ("Command exited with code 2", "Command timed out ..."). */
const failureStatus = (output: string): string => {
  const lines = output.trimEnd().split("\n")
  const last = (lines[lines.length - 1] ?? "").trim()
  if (abortedStatusLines.has(last)) return AbortedStatus
  const exit = exitPattern.exec(last)
  if (exit !== null) return `exit ${exit[1]}`
  return last === "" ? "error" : `error: ${excerpt(last, CommandExcerptLimit)}`
}

/**
 * Folds runs (oldest first) into one entry per command as the digest shows
 * it (its excerpt, so two long commands alike in their first characters are
 * one line, not two that read the same), the most recently run first.
 */
const byCommand = (runs: ReadonlyArray<{ readonly command: string; readonly status: string }>): ReadonlyArray<UnsuccessfulCommand> => {
  const commands = new Map<string, { command: string; outcomes: Array<{ status: string; count: number }> }>()
  for (const { command, status } of [...runs].reverse()) {
    const shown = excerpt(command, CommandExcerptLimit)
    const entry = commands.get(shown) ?? { command, outcomes: [] }
    const same = entry.outcomes.find((outcome) => outcome.status === status)
    if (same === undefined) entry.outcomes.push({ status, count: 1 })
    else same.count++
    commands.set(shown, entry)
  }
  return [...commands.values()]
}

/** A non-error bash result can still report a non-zero exit in its last line (other bash tools). */
const nonZeroExit = (output: string): boolean => {
  const lines = output.trimEnd().split("\n")
  const exit = exitPattern.exec(lines[lines.length - 1] ?? "")
  return exit !== null && exit[1] !== "0"
}

/** The first `limit` code points on one line, with an ellipsis when cut. */
const excerpt = (text: string, limit: number): string => {
  const points = Array.from(text.replace(/\s+/g, " ").trim())
  return points.length > limit ? `${points.slice(0, limit).join("")}…` : points.join("")
}

/** Reads the window's entries once, pairing every tool call with its result by toolCallId. */
export const windowFacts = (entries: ReadonlyArray<RawEntry>, pending: string | undefined): WindowFacts => {
  const users: Array<string> = []
  const calls = new Map<string, { readonly name: string; readonly args: unknown }>()
  const touched = new Map<string, Array<string>>()
  const runs: Array<{ command: string; status: string }> = []
  let lastReply: string | undefined
  for (const entry of entries) {
    const message = entry.type === "message" && isRecord(entry.message) ? entry.message : undefined
    if (message?.role === "bashExecution") {
      // A user's `!` command: the model saw it unless it was run with `!!`.
      if (message.excludeFromContext === true) continue
      const command = typeof message.command === "string" ? message.command : ""
      const exitCode = message.exitCode
      if (message.cancelled === true) runs.push({ command, status: AbortedStatus })
      else if (typeof exitCode === "number" && exitCode !== 0) runs.push({ command, status: `exit ${exitCode}` })
      continue
    }
    // Read as the pending request is read, so the pending one is recognised among them.
    const user = userMessageText(entry)
    if (user !== undefined) {
      if (user.trim() !== "") users.push(user)
      continue
    }
    for (const draft of draftsOfEntry(entry)) {
      switch (draft._tag) {
        case "Plain": {
          if (draft.role !== "assistant" || message?.errorMessage !== undefined) break
          const reply = draft.document().body
          if (reply.trim() !== "") lastReply = reply
          break
        }
        case "Call":
          if (!calls.has(draft.callId)) calls.set(draft.callId, { name: draft.name, args: draft.args })
          break
        case "Result": {
          const call = calls.get(draft.callId)
          if (call === undefined) break
          calls.delete(draft.callId)
          if ((call.name === "write" || call.name === "edit") && !draft.isError) {
            const path = stringArg(call.args, "path")
            if (path === undefined) break
            const tools = touched.get(path) ?? []
            touched.delete(path)
            touched.set(path, tools.includes(call.name) ? tools : [...tools, call.name])
          } else if (call.name === "bash") {
            const output = draft.output()
            if (draft.isError || nonZeroExit(output)) runs.push({ command: stringArg(call.args, "command") ?? "", status: failureStatus(output) })
          }
          break
        }
      }
    }
  }
  // The pending request is quoted on its own; the other requests are the rest.
  const pendingAt = pending === undefined ? -1 : users.map((text) => text.trim()).lastIndexOf(pending.trim())
  const requests = users.filter((_, i) => i !== pendingAt).reverse()
  const files = [...touched].reverse().map(([path, tools]) => ({ path, tools }))
  return { requests, files, unsuccessful: byCommand(runs), lastReply }
}

interface Section {
  readonly title: string
  /** One count noun per section: "user request" -> "2 user requests". */
  readonly noun: readonly [string, string]
  readonly lines: ReadonlyArray<string>
}

const quote = (text: string): string => quotedLines(text).join("\n")

const breakEscapes: Readonly<Record<string, string>> = {
  "\r\n": "\\r\\n",
  "\r": "\\r",
  "\n": "\\n",
  "\v": "\\v",
  "\f": "\\f",
  "\u0085": "\\u0085",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029"
}

/**
 * A path or command as a code span on its list line: a line break in it is
 * written as its escape and the fence outruns its backticks, so no text from
 * a tool's arguments can start a heading or close the span early.
 */
const codeSpan = (text: string): string => {
  const flat = text.replace(new RegExp(lineBreak, "g"), (found) => breakEscapes[found]!)
  const fence = "`".repeat(Math.max(0, ...Array.from(flat.matchAll(/`+/g), ([run]) => run.length)) + 1)
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : ""
  return `${fence}${pad}${flat}${pad}${fence}`
}

/** The digest's first line: where it starts inside a continuation. */
export const DigestHeading = "## Digest of the window that just ended"
const preamble = "Built by pi-context from that window's session entries, not written by a model. The session history keeps everything in full."

const render = (
  pendingText: string | undefined,
  sections: ReadonlyArray<Section>,
  taken: ReadonlyArray<number>,
  cut: ReadonlyArray<string>,
  budgetTokens: number
): string => {
  const blocks = [DigestHeading, preamble]
  if (pendingText !== undefined) blocks.push(`### The user's pending request (not yet answered)\n${pendingText}`)
  sections.forEach((section, i) => {
    const n = taken[i]!
    if (n > 0) blocks.push([`### ${section.title}`, ...section.lines.slice(0, n)].join("\n"))
  })
  if (cut.length > 0) {
    blocks.push(
      `Left out to fit the digest budget of ${budgetTokens} tokens: ${cut.join(", ")}. Find them with history_list or history_search and read one in full with history_read.`
    )
  }
  return `${blocks.join("\n\n")}\n`
}

const outcomeText = ({ status, count }: UnsuccessfulCommand["outcomes"][number]): string => (count > 1 ? `${status} ×${count}` : status)

/** Named for what it holds: a command the user aborted did not fail. */
const commandsSection = (commands: ReadonlyArray<UnsuccessfulCommand>): Section => {
  const statuses = commands.flatMap(({ outcomes }) => outcomes.map(({ status }) => status))
  const aborted = statuses.includes(AbortedStatus)
  const failed = statuses.some((status) => status !== AbortedStatus)
  const [title, noun]: readonly [string, readonly [string, string]] = aborted && failed
    ? ["Commands that failed or were aborted", ["failed or aborted command", "failed or aborted commands"]]
    : aborted
    ? ["Commands aborted", ["aborted command", "aborted commands"]]
    : ["Commands that failed", ["failed command", "failed commands"]]
  return {
    title: `${title} (newest first)`,
    noun,
    lines: commands.map(({ command, outcomes }) => `- ${codeSpan(excerpt(command, CommandExcerptLimit))}: ${outcomes.map(outcomeText).join(", ")}`)
  }
}

const sectionsOf = (facts: WindowFacts): ReadonlyArray<Section> => [
  {
    title: "The user's other requests in that window (newest first)",
    noun: ["user request", "user requests"],
    lines: facts.requests.map((text) => `- "${excerpt(text, RequestExcerptLimit)}"`)
  },
  {
    title: "Files written or edited (most recent first)",
    noun: ["file", "files"],
    lines: facts.files.map(({ path, tools }) => `- ${codeSpan(path)} (${tools.map((tool) => (tool === "write" ? "written" : "edited")).join(", ")})`)
  },
  commandsSection(facts.unsuccessful),
  {
    title: "The last assistant text (excerpt)",
    noun: ["last assistant text", "last assistant text"],
    lines: facts.lastReply === undefined ? [] : [quote(excerptBlock(facts.lastReply, ReplyExcerptLimit))]
  }
]

const excerptBlock = (text: string, limit: number): string => {
  const points = Array.from(text.trim())
  return points.length > limit ? `${points.slice(0, limit).join("")} […]` : points.join("")
}

/** Pending-request excerpt lengths tried, longest first, when the full excerpt does not fit. */
const pendingLimits = (length: number): ReadonlyArray<number> =>
  [CarriedRequestLimit, 1000, 600, 300, 120, 40, 0].filter((limit, i) => i === 0 || limit < Math.min(length, CarriedRequestLimit))

/**
 * The factual digest of an ending window, for a reset the model did not ask
 * for. Pure: built from entries only. The pending request comes first; then
 * the other sections are filled in rounds (the newest item of each, in
 * importance order, then the next of each), so a long list of requests
 * cannot crowd out the last failed command. What does not fit is named.
 */
export const windowDigest = (input: {
  readonly entries: ReadonlyArray<RawEntry>
  readonly pending: string | undefined
  readonly budgetTokens: number
}): WindowDigest => {
  const pending = input.pending !== undefined && input.pending.trim() !== "" ? input.pending : undefined
  const facts = windowFacts(input.entries, pending)
  const sections = sectionsOf(facts)
  const budget = input.budgetTokens
  if (pending === undefined && sections.every((section) => section.lines.length === 0)) return { text: "", tokens: 0, cut: [] }

  const cutOf = (taken: ReadonlyArray<number>, pendingCut: string | undefined): Array<string> => [
    ...(pendingCut === undefined ? [] : [pendingCut]),
    ...sections.flatMap((section, i) => {
      const left = section.lines.length - taken[i]!
      return left > 0 ? [plural(left, ...section.noun)] : []
    })
  ]
  const fits = (text: string) => estimateTokens(text) <= budget

  // The pending request: the longest excerpt that fits with nothing else.
  const none = sections.map(() => 0)
  let pendingText: string | undefined
  let pendingCut: string | undefined
  if (pending !== undefined) {
    const length = Array.from(pending.trim()).length
    for (const limit of pendingLimits(length)) {
      const block = quote(requestExcerpt(pending, limit))
      const cutNote = length > limit ? `the pending request beyond its first ${limit} of ${length} characters` : undefined
      if (fits(render(block, sections, none, cutOf(none, cutNote), budget))) {
        pendingText = block
        pendingCut = cutNote
        break
      }
    }
    // Nothing may take the pending request's place: with no room for it, the digest says nothing.
    if (pendingText === undefined) return { text: "", tokens: 0, cut: cutOf(none, "the pending request") }
  }

  const taken = [...none]
  const full = sections.map((section) => section.lines.length === 0)
  for (let round = 0; full.some((done) => !done); round++) {
    sections.forEach((section, i) => {
      if (full[i] || round >= section.lines.length) {
        full[i] = true
        return
      }
      const next = taken.map((n, j) => (j === i ? n + 1 : n))
      if (fits(render(pendingText, sections, next, cutOf(next, pendingCut), budget))) taken[i] = round + 1
      else full[i] = true
    })
  }

  const cut = cutOf(taken, pendingCut)
  const text = render(pendingText, sections, taken, cut, budget)
  // Not even the heading and the list of cuts fit: say nothing rather than exceed the budget.
  if (!fits(text)) return { text: "", tokens: 0, cut: cutOf(none, pending === undefined ? undefined : "the pending request") }
  return { text, tokens: estimateTokens(text), cut }
}

/** How much of the pending request a continuation quotes. */
export const CarriedRequestLimit = 1_500

/** The pending request's beginning, with the pointer to the history tools when it is cut. */
export const requestExcerpt = (request: string, limit: number = CarriedRequestLimit): string => {
  const points = Array.from(request.trim())
  return points.length > limit
    ? `${points.slice(0, limit).join("")}\n[… ${points.length - limit} more characters; find the message with history_search and read it with history_read]`
    : points.join("")
}
