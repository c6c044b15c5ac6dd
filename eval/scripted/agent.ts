/**
 * The scripted agent: a reply is a function of the request alone. It rebuilds
 * what it knows from what the request shows (the user's messages, tool
 * results, its own step announcements, and the checkpoint, summary or digest a
 * turnover left), asks the task's solver for the next action, and keeps its
 * memory the way a careful agent would: a checkpoint note when pi-context
 * guides or warns it, `wipe_memory` after the warning, and a summary of what
 * it still sees when Pi asks it to summarise.
 */
import type { AssistantMessage, Message, TextContent, ToolCall, TranscriptContext } from "@earendil-works/pi-ai"
import { getCurrentSystemPrompt, getCurrentTools } from "@earendil-works/pi-ai"
import type { Action, Knowledge, ScriptedSolver, SeenResult, ToolCallSpec } from "../tasks/taskTypes.ts"
import { probeMark, probeQuestions } from "../harness/probe.ts"
import type { Reply } from "./provider.ts"
import { applyEdits, defaultStandIn, editsBetween, lossyFacts, type StandIn } from "./standIn.ts"

type Item =
  | { readonly kind: "user"; readonly text: string }
  | { readonly kind: "assistant"; readonly text: string; readonly calls: ReadonlyArray<ToolCallSpec> }
  | { readonly kind: "result"; readonly result: SeenResult }

/** How Pi's compaction summary request begins: the scripted agent answers it with a summary. */
export const summarizerPrompt = "You are a context summarization assistant"
const marks = {
  boot: "## Context window",
  resetBoot: "Your working memory was reset",
  compacted: "The conversation history before this point was compacted",
  guidance: "[pi-context] Context budget",
  warning: "[pi-context] Final context warning",
  closeOut: "[pi-context] Close-out",
  refused: "Write your checkpoint first"
} as const

const stepLine = /Step: ([^\n]+?)\.(?=\n|$)/g
const factLine = /^- fact (\S+) = (.*)$/gm
const doneLine = /^- done (.*)$/gm
const digestFile = /^- (\S+) \((?:written|edited)[^)]*\)$/gm

const textOf = (content: string | ReadonlyArray<{ readonly type: string }>): string =>
  typeof content === "string" ? content : content.map((part) => (part.type === "text" ? (part as TextContent).text : "")).join("")

/** The conversation a request carries, with each tool result joined to its call. */
const itemsOf = (messages: ReadonlyArray<Message>): ReadonlyArray<Item> => {
  const calls = new Map<string, ToolCallSpec>()
  const items: Array<Item> = []
  for (const message of messages) {
    if (message.role === "user") items.push({ kind: "user", text: textOf(message.content) })
    else if (message.role === "assistant") {
      const toolCalls = message.content.filter((part): part is ToolCall => part.type === "toolCall")
      for (const call of toolCalls) calls.set(call.id, { name: call.name, args: call.arguments })
      items.push({ kind: "assistant", text: textOf(message.content), calls: toolCalls.map((call) => ({ name: call.name, args: call.arguments })) })
    } else if (message.role === "toolResult") {
      const call = calls.get(message.toolCallId) ?? { name: message.toolName, args: {} }
      items.push({ kind: "result", result: { tool: call.name, args: call.args, text: textOf(message.content), isError: message.isError } })
    }
  }
  return items
}

/** Reads the checkpoint notation (`- fact k = v`, `- done a b`) wherever it appears: a note, a summary, a boot. */
const readState = (text: string, facts: Map<string, string>, done: Set<string>): void => {
  for (const match of text.matchAll(factLine)) {
    try {
      facts.set(match[1]!, String(JSON.parse(match[2]!)))
    } catch {
      facts.set(match[1]!, match[2]!)
    }
  }
  for (const match of text.matchAll(doneLine)) for (const step of match[1]!.split(" ")) if (step !== "") done.add(step)
}

const announced = (text: string): ReadonlyArray<string> => [...text.matchAll(stepLine)].flatMap((match) => match[1]!.split(", "))

const knowledgeOf = (items: ReadonlyArray<Item>, solver: ScriptedSolver, tools: ReadonlyArray<string> = []): Knowledge => {
  const facts = new Map<string, string>()
  const done = new Set<string>()
  const results: Array<SeenResult> = []
  items.forEach((item, index) => {
    if (item.kind === "user") {
      // A boot quotes notes line by line ("> "): what they say is known as well as what a note read says.
      readState(item.text.replace(/^> ?/gm, ""), facts, done)
      // A digest names the files the ended window wrote: their steps are done.
      for (const match of item.text.matchAll(digestFile)) done.add(`write:${match[1]}`)
      solver.learn(item.text, facts)
    } else if (item.kind === "assistant") {
      // What it said it learned is what it knows, wherever its reply survives (a kept turn, a summary of it).
      readState(item.text, facts, new Set())
      const failed = items.slice(index + 1, index + 1 + item.calls.length).some((next) => next.kind === "result" && next.result.isError)
      if (!failed) for (const step of announced(item.text)) done.add(step)
    } else {
      results.push(item.result)
      if (item.result.tool === "notes_read") readState(item.result.text, facts, done)
      solver.learn(item.result.text, facts, { name: item.result.tool, args: item.result.args })
    }
  })
  return { facts, done, results, tools }
}

/**
 * The checkpoint note: the scripted agent's whole state in its own notation;
 * with a lossy stand-in, less one fact now and then (drawn from what it writes).
 */
export const checkpointNote = (knowledge: Knowledge, loss = 0, salt = "checkpoint"): string =>
  [
    "# Checkpoint",
    "The task in progress, in the scripted agent's notation: each fact it knows, then the steps done.",
    ...[...lossyFacts(knowledge.facts, loss, `${salt} ${[...knowledge.done].join(" ")}`)].map(([key, value]) => `- fact ${key} = ${JSON.stringify(value)}`),
    `- done ${[...knowledge.done].join(" ")}`,
    ""
  ].join("\n")

const mapNote = "# Session map\n- checkpoint: the task's goal, facts and the steps done; resume from it.\n"

const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let index = 0; index < text.length; index++) h = Math.imul(h ^ text.charCodeAt(index), 0x01000193)
  return (h >>> 0).toString(36)
}

const render = (action: Action, seed: string, extra: ReadonlyArray<ToolCallSpec> = [], learned = ""): Reply => {
  const stepText = action.steps.length > 0 ? `Step: ${action.steps.join(", ")}.` : ""
  if (action.kind === "reply") {
    return { content: [{ type: "text", text: [learned, stepText, action.text].filter((part) => part !== "").join("\n") }], stopReason: "stop" }
  }
  const calls = [...extra, ...action.calls]
  const text = [learned, stepText, action.say ?? ""].filter((part) => part !== "").join("\n")
  const content: AssistantMessage["content"] = [
    ...(text === "" ? [] : [{ type: "text" as const, text }]),
    ...calls.map((call, index) => ({ type: "toolCall" as const, id: `sc_${seed}_${index}`, name: call.name, arguments: call.args as ToolCall["arguments"] }))
  ]
  return { content, stopReason: "toolUse" }
}

const checkpointCalls = (knowledge: Knowledge, standIn: StandIn): ReadonlyArray<ToolCallSpec> => [
  { name: "notes_write", args: { address: "checkpoint", content: checkpointNote(knowledge, standIn.loss) } },
  { name: "notes_write", args: { address: "MAP", content: mapNote } }
]

/** What happened in the current window (since the last boot or compaction summary). */
const windowFacts = (items: ReadonlyArray<Item>) => {
  let start = 0
  items.forEach((item, index) => {
    if (item.kind === "user" && ((item.text.includes(marks.boot) && item.text.includes("Current window:")) || item.text.startsWith(marks.compacted))) start = index
  })
  const since = items.slice(start)
  const lastIndex = (test: (item: Item) => boolean) => since.findLastIndex(test)
  const userHas = (mark: string) => lastIndex((item) => item.kind === "user" && item.text.includes(mark))
  const lastNoteWrite = lastIndex((item) => item.kind === "assistant" && item.calls.some((call) => call.name === "notes_write"))
  const steps = since.filter((item) => item.kind === "assistant" && announced(item.text).length > 0).length
  const last = items.at(-1)
  return {
    afterReset: since[0]?.kind === "user" && since[0].text.includes(marks.resetBoot),
    checkpointQuoted: since[0]?.kind === "user" && /^> - done /m.test(since[0].text),
    notesRead: since.some((item) => item.kind === "assistant" && item.calls.some((call) => call.name === "notes_read")),
    guidance: userHas(marks.guidance),
    warning: userHas(marks.warning),
    closeOut: userHas(marks.closeOut),
    lastNoteWrite,
    steps,
    refused: last?.kind === "result" && last.result.tool === "wipe_memory" && last.result.text.includes(marks.refused)
  }
}

/** Pi's serialized conversation (`[User]: …`, `[Assistant tool calls]: read(path="a")`, `[Tool result]: …`) back into items. */
const serializedItems = (prompt: string): ReadonlyArray<Item> => {
  const items: Array<Item> = []
  const pending: Array<ToolCallSpec> = []
  for (const part of prompt.split(/\n\n(?=\[(?:User|Assistant|Assistant tool calls|Tool result)\]: )/)) {
    const [, role, body = ""] = /^\[(User|Assistant|Assistant tool calls|Tool result)\]: ([\s\S]*)$/.exec(part) ?? [undefined, "User", part]
    if (role === "User") items.push({ kind: "user", text: body })
    else if (role === "Assistant") items.push({ kind: "assistant", text: body, calls: [] })
    else if (role === "Assistant tool calls") {
      const calls = body.split(/\); (?=\w+\()/).map((text): ToolCallSpec => {
        const name = /^(\w+)\(/.exec(text)?.[1] ?? "unknown"
        const args: Record<string, unknown> = {}
        for (const match of text.matchAll(/(\w+)=("(?:[^"\\]|\\.)*")/g)) args[match[1]!] = JSON.parse(match[2]!)
        return { name, args }
      })
      pending.push(...calls)
      items.push({ kind: "assistant", text: "", calls })
    } else {
      const made = pending.shift() ?? { name: "unknown", args: {} }
      items.push({ kind: "result", result: { tool: made.name, args: made.args, text: body, isError: false } })
    }
  }
  return items
}

const summarise = (prompt: string, solver: ScriptedSolver, standIn: StandIn): Reply => {
  const knowledge = knowledgeOf(serializedItems(prompt), solver)
  // The previous summary (and anything outside the conversation) carries the state notation too.
  const facts = new Map<string, string>()
  readState(prompt, facts, knowledge.done)
  for (const [key, value] of facts) if (!knowledge.facts.has(key)) knowledge.facts.set(key, value)
  for (const step of announced(prompt)) knowledge.done.add(step)
  const state = checkpointNote(knowledge, standIn.loss, "summary").split("\n").slice(2).join("\n")
  const text = `## Goal\nThe task the user gave, as the facts below record it.\n\n## Progress\n${state}`
  return { content: [{ type: "text", text }], stopReason: "stop" }
}

/**
 * What the results since its last reply taught it, said as a model would say it
 * before acting (in the agent's notation, so that any memory of the reply
 * keeps it): every arm's memory, a summary, notes or a masked context, then
 * holds the same text.
 */
const learnedText = (items: ReadonlyArray<Item>, solver: ScriptedSolver, knowledge: Knowledge, standIn: StandIn): string => {
  if (!standIn.restates) return ""
  const lastReply = items.findLastIndex((item) => item.kind === "assistant")
  const results = items.slice(lastReply + 1).filter((item) => item.kind === "result")
  // Reading its own notes back is recalling what it knew, not learning: it goes on working instead of reciting them.
  if (lastReply < 0 || results.length === 0 || results.some((item) => item.kind === "result" && item.result.tool === "notes_read")) return ""
  const before = knowledgeOf(items.slice(0, lastReply + 1), solver).facts
  const news = [...knowledge.facts].filter(([key, value]) => before.get(key) !== value)
  return news.length === 0 ? "" : ["Learned:", ...news.map(([key, value]) => `- fact ${key} = ${JSON.stringify(value)}`)].join("\n")
}

/** How many identical failing calls in a row make a careful agent stop and say it is blocked. */
export const BlockedAfter = 3

/** The call that failed the last `BlockedAfter` times in a row, identically, if one did. */
const repeatedFailure = (results: ReadonlyArray<SeenResult>): SeenResult | undefined => {
  const last = results.slice(-BlockedAfter)
  if (last.length < BlockedAfter || !last.every((result) => result.isError)) return undefined
  const key = (result: SeenResult) => JSON.stringify([result.tool, result.args])
  return last.every((result) => key(result) === key(last[0]!)) ? last[0] : undefined
}

/**
 * The answer to a continuity probe: each fact asked from what the request
 * shows it knows (by the scripted agent's name for it), the files its steps and
 * the results it sees changed, and the file it would change next (or read, on
 * its way to changing it).
 */
const probeAnswer = (question: string, items: ReadonlyArray<Item>, knowledge: Knowledge, solver: ScriptedSolver, standIn: StandIn): Reply => {
  const changed = new Set([
    ...[...knowledge.done].filter((step) => step.startsWith("write:")).map((step) => step.slice("write:".length)),
    ...knowledge.results.filter((result) => (result.tool === "write" || result.tool === "edit") && !result.isError).map((result) => String(result.args.path))
  ])
  const next = asStandIn(solver.next(knowledge), items, standIn)
  const nextCalls = next.kind === "call" ? next.calls : []
  const nextPath = (nextCalls.find((made) => made.name === "write" || made.name === "edit") ?? nextCalls.find((made) => made.name === "read"))?.args.path
  const line = ({ label, key }: { readonly label: string; readonly key: string | undefined }): string => {
    if (label === "DONE") return `DONE. ${changed.size === 0 ? "none" : [...changed].join(", ")}`
    if (label === "NEXT") return `NEXT. ${typeof nextPath === "string" ? nextPath : next.kind === "reply" ? "none" : "I do not know"}`
    const value = key === undefined ? undefined : knowledge.facts.get(key)
    return `${label}. ${value ?? "I do not know"}`
  }
  return { content: [{ type: "text", text: probeQuestions(question).map(line).join("\n") }], stopReason: "stop" }
}

/**
 * What the request shows of the files: the content of each it has read whole,
 * written or edited since (undefined once it can no longer tell), and the paths
 * it knows exist (a file call on them succeeded), and the text that may name
 * others (tool results, boots, summaries).
 */
const filesShown = (items: ReadonlyArray<Item>): { readonly contents: ReadonlyMap<string, string | undefined>; readonly existing: ReadonlySet<string>; readonly missing: ReadonlySet<string>; readonly mentions: string } => {
  const contents = new Map<string, string | undefined>()
  const existing = new Set<string>()
  const missing = new Set<string>()
  const mentioned: Array<string> = []
  for (const item of items) {
    if (item.kind === "user") {
      if (item.text.includes(marks.boot) || item.text.startsWith(marks.compacted)) mentioned.push(item.text)
      continue
    }
    if (item.kind !== "result") continue
    const { tool, args, text, isError } = item.result
    mentioned.push(text)
    const path = typeof args.path === "string" ? args.path : undefined
    if (path === undefined) continue
    if (isError) {
      // A file it failed to read is one it may create.
      if (tool === "read") missing.add(path)
      continue
    }
    if (tool === "read" || tool === "write" || tool === "edit") (existing.add(path), missing.delete(path))
    if (tool === "read") contents.set(path, args.offset === undefined && args.limit === undefined && !/\n\[\d+ more lines in file\./.test(text) ? text : contents.get(path))
    if (tool === "write") contents.set(path, typeof args.content === "string" ? args.content : undefined)
    if (tool === "edit") {
      const known = contents.get(path)
      const edits = args.edits as ReadonlyArray<{ oldText: string; newText: string }> | undefined
      contents.set(path, known === undefined || !Array.isArray(edits) ? undefined : applyEdits(known, edits))
    }
  }
  return { contents, existing, missing, mentions: mentioned.join("\n") }
}

/**
 * The action as the stand-in makes it: with `edit`, a whole-file write of a file
 * that exists becomes the edits that make the same change (Pi's prompt asks for
 * `edit`), or a read of it first when the request no longer shows its content;
 * only a new file is written.
 */
const asStandIn = (action: Action, items: ReadonlyArray<Item>, standIn: StandIn): Action => {
  if (standIn.changes === "write" || action.kind !== "call") return action
  const files = filesShown(items)
  const calls: Array<ToolCallSpec> = []
  for (const made of action.calls) {
    const path = made.args.path
    if (made.name !== "write" || typeof path !== "string" || typeof made.args.content !== "string") {
      calls.push(made)
      continue
    }
    const known = files.contents.get(path)
    const exists = files.existing.has(path) || !files.missing.has(path) && new RegExp(`(^|[\\s(/"'\`])${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[\\s),:"'\`])`, "m").test(files.mentions)
    if (known === undefined && exists) return { kind: "call", steps: [], calls: [{ name: "read", args: { path } }], say: `Reading ${path} before I change it.` }
    const edits = known === undefined ? undefined : editsBetween(known, made.args.content)
    calls.push(edits === undefined ? made : { name: "edit", args: { path, edits } })
  }
  return { ...action, calls }
}

/** The scripted agent for one task: the provider's reply function. */
export const scriptedAgent = (solver: ScriptedSolver, standIn: StandIn = defaultStandIn) => (context: TranscriptContext): Reply => {
  const system = getCurrentSystemPrompt(context.messages)
  const messages = context.messages.filter((message) => message.role !== "system")
  if (system.startsWith(summarizerPrompt)) return summarise(messages.map((message) => (message.role === "user" ? textOf(message.content) : "")).join("\n"), solver, standIn)
  const items = itemsOf(messages)
  const seed = hash(JSON.stringify(messages.at(-1) ?? "")) + String(items.length)
  const last = items.at(-1)
  if (last?.kind === "user" && last.text.startsWith(probeMark)) return probeAnswer(last.text, items.slice(0, -1), knowledgeOf(items.slice(0, -1), solver), solver, standIn)
  const knowledge = knowledgeOf(items, solver, getCurrentTools(context.messages).map((tool) => tool.name))
  const window = windowFacts(items)
  const learned = learnedText(items, solver, knowledge, standIn)
  const stuck = repeatedFailure(knowledge.results)
  if (stuck !== undefined) {
    const text = `I am blocked: ${stuck.tool} ${JSON.stringify(stuck.args)} failed ${BlockedAfter} times in a row: ${stuck.text.slice(0, 200)}`
    return render({ kind: "reply", steps: [], text }, seed, [], learned)
  }
  const reminderUnheeded = (line: number) => line >= 0 && line > window.lastNoteWrite
  // After the final warning (once this window has done some work) or the close-out: checkpoint, then a fresh window.
  if (window.refused || reminderUnheeded(window.closeOut) || (reminderUnheeded(window.warning) && window.steps >= 2)) {
    return render({ kind: "call", steps: [], calls: [...checkpointCalls(knowledge, standIn), { name: "wipe_memory", args: {} }], say: "Saving my checkpoint before the window resets." }, seed, [], learned)
  }
  // A checkpoint the boot quotes whole (it ends with its "- done" line) needs no reading: only a missing or cut one does.
  if (window.afterReset && !window.notesRead && !window.checkpointQuoted) {
    return render({ kind: "call", steps: [], calls: [{ name: "notes_read", args: { address: "checkpoint" } }], say: "Reading my checkpoint." }, seed, [], learned)
  }
  const action = asStandIn(solver.next(knowledge), items, standIn)
  // Guided early: keep the checkpoint current and go on working.
  if (action.kind === "call" && reminderUnheeded(window.guidance) && window.lastNoteWrite < 0 && window.steps >= 1) return render(action, seed, checkpointCalls(knowledge, standIn), learned)
  return render(action, seed, [], learned)
}
