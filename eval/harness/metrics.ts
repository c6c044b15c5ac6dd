/** A run's figures, read from its session entries and the usage the provider reported in them. */
import type { Api, Model, Usage } from "@earendil-works/pi-ai"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import type { UserMessageSpec } from "../tasks/taskTypes.ts"
import type { CallPoint, RequestOutcome, Tokens, Turnovers } from "./types.ts"

export interface Measured {
  readonly turnovers: Turnovers
  readonly modelCalls: number
  readonly tokens: Tokens
  readonly costUsd: number
  readonly notesWritten: number
  readonly historyToolCalls: number
  readonly calls: ReadonlyArray<CallPoint>
  readonly requests: ReadonlyArray<RequestOutcome>
  readonly repliesToOlderRequests: number
  readonly lastReply: string | undefined
  /** The same failing call (tool and arguments) made this many times in the run, at most. */
  readonly mostRepeatedFailure: number
}

/** How many identical failing calls make a run "stuck" in the report. */
export const StuckAfter = 3

type Part = { readonly type: string; readonly text?: string; readonly name?: string }

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? (content as ReadonlyArray<Part>).map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("") : ""

const piContextSource = (entry: SessionEntry): boolean =>
  entry.type === "compaction" && typeof entry.details === "object" && entry.details !== null && (entry.details as { source?: unknown }).source === "pi-context"

/** What one model call sent: every prompt token, cached or not. */
export const sentTokens = (usage: Usage): number => usage.input + usage.cacheRead + usage.cacheWrite

/** Cost in USD from the model's prices (dollars per million tokens), the way Pi prices usage. */
export const priceOf = (tokens: Tokens, model: Pick<Model<Api>, "cost">): number =>
  (tokens.input * model.cost.input + tokens.output * model.cost.output + tokens.cacheRead * model.cost.cacheRead + tokens.cacheWrite * model.cost.cacheWrite) / 1_000_000

interface Event {
  readonly kind: "user" | "reply" | "turnover"
  readonly text: string
  /** A reply that ended the model's run (no tool calls). */
  readonly final?: boolean
}

export const measure = (
  entries: ReadonlyArray<SessionEntry>,
  model: Pick<Model<Api>, "cost">,
  sent: ReadonlyArray<{ readonly spec: UserMessageSpec; readonly sentAs: string }>
): Measured => {
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  const calls: Array<CallPoint> = []
  const resetsBySource: Record<string, number> = {}
  let compactions = 0
  let notesWritten = 0
  let historyToolCalls = 0
  let pendingTurnover: CallPoint["turnoverBefore"]
  const events: Array<Event> = []
  const callKeys = new Map<string, string>()
  const failuresByCall = new Map<string, number>()
  const addUsage = (usage: Usage | undefined) => {
    if (usage === undefined) return
    tokens.input += usage.input
    tokens.output += usage.output
    tokens.cacheRead += usage.cacheRead
    tokens.cacheWrite += usage.cacheWrite
    calls.push({ call: calls.length + 1, sent: sentTokens(usage), turnoverBefore: pendingTurnover })
    pendingTurnover = undefined
  }
  for (const entry of entries) {
    if (entry.type === "message") {
      const message = entry.message as { role: string; content?: unknown; usage?: Usage; toolName?: string; isError?: boolean; stopReason?: string }
      if (message.role === "assistant") {
        addUsage(message.usage)
        for (const part of (Array.isArray(message.content) ? message.content : []) as ReadonlyArray<Part & { id?: string; arguments?: unknown }>) {
          if (part.type !== "toolCall") continue
          if (part.name?.startsWith("history_") === true) historyToolCalls++
          if (part.id !== undefined) callKeys.set(part.id, JSON.stringify([part.name, part.arguments]))
        }
        const text = textOf(message.content)
        if (text.trim() !== "") events.push({ kind: "reply", text, final: message.stopReason === "stop" })
      } else if (message.role === "toolResult") {
        const key = callKeys.get((message as { toolCallId?: string }).toolCallId ?? "")
        if (message.isError === true && key !== undefined) failuresByCall.set(key, (failuresByCall.get(key) ?? 0) + 1)
        if ((message.toolName === "notes_write" || message.toolName === "notes_update") && message.isError !== true) notesWritten++
      } else if (message.role === "user") events.push({ kind: "user", text: textOf(message.content) })
    } else if (entry.type === "compaction" && !piContextSource(entry)) {
      compactions++
      // The summary's own model call(s), as Pi recorded their usage.
      pendingTurnover = "compaction"
      addUsage((entry as { usage?: Usage }).usage)
      events.push({ kind: "turnover", text: "" })
    } else if (entry.type === "custom" && entry.customType === "pi-context/reset-marker") {
      const source = String((entry.data as { source?: unknown } | undefined)?.source ?? "reset")
      resetsBySource[source] = (resetsBySource[source] ?? 0) + 1
      pendingTurnover = "reset"
      events.push({ kind: "turnover", text: "" })
    }
  }
  const resets = Object.values(resetsBySource).reduce((sum, count) => sum + count, 0)
  const requests = sent.map(({ spec, sentAs }) => outcome(events, spec, sentAs))
  const replies = events.filter((event) => event.kind === "reply")
  return {
    turnovers: { resets, resetsBySource, compactions, total: resets + compactions },
    modelCalls: calls.length,
    tokens,
    costUsd: priceOf(tokens, model),
    notesWritten,
    historyToolCalls,
    calls,
    requests,
    repliesToOlderRequests: requests.reduce((sum, request) => sum + request.repeatedAfterTurnover, 0),
    lastReply: replies.findLast((event) => event.final === true)?.text,
    mostRepeatedFailure: Math.max(0, ...failuresByCall.values())
  }
}

/**
 * A reply without the facts the scripted agent restates before acting
 * ("Learned:" and its "- fact" lines): its memory of a result, not an answer
 * to the user (a job's name it read is not yet the answer to "which job failed?").
 */
export const withoutRestatedFacts = (text: string): string => text.replace(/^Learned:\n(?:- fact [^\n]*(?:\n|$))*/m, "")

/** Whether a request was answered, and how often it was answered again after a later turnover. */
const outcome = (events: ReadonlyArray<Event>, spec: UserMessageSpec, sentAs: string): RequestOutcome => {
  const at = events.findIndex((event) => event.kind === "user" && event.text.trim() === spec.text.trim())
  if (at < 0) return { id: spec.id, sent: false, sentAs, answered: false, repeatedAfterTurnover: 0 }
  const answers = (event: Event) =>
    event.kind === "reply" && (spec.answer === undefined ? event.final === true : spec.answer.test(withoutRestatedFacts(event.text)))
  const first = events.findIndex((event, index) => index > at && answers(event))
  if (first < 0) return { id: spec.id, sent: true, sentAs, answered: false, repeatedAfterTurnover: 0 }
  // Only a request with a recognisable answer can be seen answered twice.
  const turnover = spec.answer === undefined ? -1 : events.findIndex((event, index) => index > first && event.kind === "turnover")
  const repeated = turnover < 0 ? 0 : events.filter((event, index) => index > turnover && answers(event)).length
  return { id: spec.id, sent: true, sentAs, answered: true, repeatedAfterTurnover: repeated }
}
