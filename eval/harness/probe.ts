/**
 * Continuity probes: after each turnover of a run, the exact first request of
 * the new window (a boot and continuation, a summary and kept turns, a masked
 * context) is sent once more to the same model, outside the run, with a fixed
 * question appended; the answer is graded against the facts the task
 * declares. One model call per turnover: cheap enough for hundreds of runs,
 * and it measures what each arm's memory hands the model, whatever the model
 * then does with its tools.
 */
import type { Message, TranscriptContext } from "@earendil-works/pi-ai"
import { estimateTokens, requestText } from "../scripted/provider.ts"
import type { TaskFact } from "../tasks/taskTypes.ts"

export const probeMark = "[eval probe, not part of the task]"

export const probeText = `${probeMark} Do not call any tool; answer from what you know right now. What is the task? ` +
  "Which facts does it need (names, values, rules)? Which steps are done? What is next? Which files changed?"

export interface Probe {
  /** Which turnover of the run (1: the first). */
  readonly turnover: number
  readonly kind: "reset" | "compaction"
  /** The share of the task's facts the answer holds. */
  readonly recall: number
  /** The probed request's size, four characters a token. */
  readonly tokens: number
}

const textOf = (message: Message): string =>
  message.role === "user" ? (typeof message.content === "string" ? message.content : message.content.map((part) => (part.type === "text" ? part.text : "")).join("")) : ""

const summarizerPrompt = "You are a context summarization assistant"
const compactedMark = "The conversation history before this point was compacted"

/** Which window a request belongs to: the boot's window id, or the compaction summary it starts from; undefined for Pi's own summary calls. */
const windowKey = (context: TranscriptContext): { readonly key: string; readonly kind: Probe["kind"] } | undefined => {
  const system = context.messages.find((message) => message.role === "system")
  const systemText = system === undefined ? "" : typeof system.content === "string" ? system.content : system.content.map((part) => part.text).join("")
  if (systemText.startsWith(summarizerPrompt)) return undefined
  for (const message of context.messages) {
    const text = textOf(message)
    const window = /^Current window: (.+)$/m.exec(text)
    if (text.startsWith("## Context window") && window !== null) return { key: `boot:${window[1]}`, kind: "reset" }
    if (text.startsWith(compactedMark)) return { key: `summary:${text.length}:${text.slice(0, 400)}`, kind: "compaction" }
  }
  return { key: "first", kind: "reset" }
}

/** The first request of each window after the first, in order, with the kind of turnover that opened it. */
export const turnoverRequests = (requests: ReadonlyArray<TranscriptContext>): ReadonlyArray<{ readonly kind: Probe["kind"]; readonly context: TranscriptContext }> => {
  const found: Array<{ readonly kind: Probe["kind"]; readonly context: TranscriptContext }> = []
  let current: string | undefined
  for (const context of requests) {
    const window = windowKey(context)
    if (window === undefined) continue
    if (current !== undefined && window.key !== current) found.push({ kind: window.kind, context })
    current = window.key
  }
  return found
}

/** The probed request: the window's first request with the probe after it. */
export const probeRequest = (context: TranscriptContext): TranscriptContext => ({
  ...context,
  messages: [...context.messages, { role: "user", content: probeText, timestamp: 0 } as Message]
})

/** The share of `facts` an answer holds. */
export const recallOf = (answer: string, facts: ReadonlyArray<TaskFact>): number =>
  facts.length === 0 ? 1 : facts.filter((fact) => fact.pattern.test(answer)).length / facts.length

/**
 * Probes every turnover of a run with `answer` (the same model, one call each). Each probe is graded on the facts the
 * run had been given before that turnover (a user message or a tool result of an earlier request): a fact the user
 * has not said yet is nothing a window could have kept.
 */
export const probeTurnovers = async (
  requests: ReadonlyArray<TranscriptContext>,
  facts: ReadonlyArray<TaskFact>,
  answer: (context: TranscriptContext) => Promise<string> | string
): Promise<ReadonlyArray<Probe>> => {
  const turnovers = new Map(turnoverRequests(requests).map((turnover, index) => [turnover.context, { ...turnover, index }]))
  const given = new Set<TaskFact>()
  const probes: Array<Probe> = []
  for (const context of requests) {
    const turnover = turnovers.get(context)
    if (turnover !== undefined) {
      const probed = probeRequest(context)
      probes.push({ turnover: turnover.index + 1, kind: turnover.kind, recall: recallOf(await answer(probed), facts.filter((fact) => given.has(fact))), tokens: estimateTokens(requestText(probed)) })
    }
    const text = requestText(context)
    for (const fact of facts) if (!given.has(fact) && fact.pattern.test(text)) given.add(fact)
  }
  return probes
}
