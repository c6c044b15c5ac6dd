/**
 * What pi-context adds to every provider request, part by part, as the
 * provider receives it: Pi's real agent loop (the SDK harness, the faux
 * model, Pi's `read`, `bash`, `edit` and `write` tools), once with Pi alone
 * and once with pi-context, the same prompt; the difference of each part of
 * the request the provider is sent:
 * - tools: the JSON of the tool definitions (names, descriptions, schemas);
 * - system: the system prompt;
 * - messages: the JSON of the conversation (pi-context's hidden boot);
 * counted as characters / 4, and the messages also by Pi's own estimate.
 *
 * Three requests with pi-context: the first of a session with no notes; the
 * first after a reset (its window's boot and continuation instead of the
 * conversation); and the first after a reset with 20 notes in each of the
 * five homes.
 *
 * Writes bench/results/overhead.json. Target (issue 28): the first request
 * with no notes carries at most 1,200 tokens more than Pi alone.
 *
 *   npm exec -- node bench/overhead.ts
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Context as ProviderContext, getCurrentSystemPrompt, getCurrentTools } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { estimateTokens as piEstimate } from "@earendil-works/pi-coding-agent"
import { createHarness } from "../test/support/sdkHarness.ts"

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "results")
const piTools = ["read", "bash", "edit", "write"]

/** Four characters a token, as pi-context and Pi estimate text. */
const charTokens = (value: unknown): number => Math.ceil((typeof value === "string" ? value : JSON.stringify(value ?? null)).length / 4)

interface Parts {
  readonly tools: number
  readonly system: number
  readonly messages: number
  /** Pi's own estimate of the conversation (`estimateTokens` per message). */
  readonly messagesPi: number
}

/** The parts of a request: Pi 1.6 carries the system prompt and the tools as messages of the transcript. */
const partsOf = (request: ProviderContext): Parts => {
  const messages = request.messages.filter((message) => (message.role as string) !== "system")
  return {
    tools: charTokens(getCurrentTools(request.messages as never)),
    system: charTokens(getCurrentSystemPrompt(request.messages as never)),
    messages: charTokens(messages),
    messagesPi: messages.reduce((sum, message) => sum + piEstimate(message as never), 0)
  }
}

const minus = (a: Parts, b: Parts): Parts & { readonly total: number } => {
  const tools = a.tools - b.tools
  const system = a.system - b.system
  const messages = a.messages - b.messages
  return { tools, system, messages, messagesPi: a.messagesPi - b.messagesPi, total: tools + system + messages }
}

const say = (text: string) => fauxAssistantMessage(text)
const prompt = "hello"

/** Pi alone: the first request of a session. */
const piAlone = async (): Promise<Parts> => {
  const h = await createHarness({ loadPackage: false, tools: piTools, systemPrompt: null })
  try {
    h.script([say("hi")])
    await h.prompt(prompt)
    return partsOf(h.requests[0]!)
  } finally {
    await h.dispose()
  }
}

const homes = ["", "@project/", "@user/", "@agent/", "@model/"]

/** With pi-context: the first request, and the first after a reset (with notes in every home when `notesPerHome` > 0). */
const withPiContext = async (notesPerHome: number): Promise<{ readonly first: Parts; readonly afterReset: Parts }> => {
  const h = await createHarness({ tools: piTools, systemPrompt: null })
  try {
    const notes = homes.flatMap((home) =>
      Array.from({ length: notesPerHome }, (_, i) =>
        fauxToolCall("notes_write", { address: `${home}topic-${i}`, content: `# Topic ${i}\nA decision about topic ${i}, and why.\n` }))
    )
    h.script([
      say("hi"),
      fauxAssistantMessage([...notes, fauxToolCall("notes_write", { address: "checkpoint", content: "# Checkpoint\nnext: go on" })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxToolCall("wipe_memory", {})], { stopReason: "toolUse" }),
      say("fresh")
    ])
    await h.prompt(prompt)
    const first = partsOf(h.requests[0]!)
    await h.prompt("write your notes, then reset")
    const afterReset = partsOf(h.requests.at(-1)!)
    return { first, afterReset }
  } finally {
    await h.dispose()
  }
}

const alone = await piAlone()
const empty = await withPiContext(0)
const full = await withPiContext(20)
const figures = {
  first_request_no_notes: minus(empty.first, alone),
  after_reset_no_notes: minus(empty.afterReset, alone),
  after_reset_5x20_notes: minus(full.afterReset, alone),
  pi_alone: alone
}

const row = (name: string, parts: Parts & { readonly total?: number }) =>
  `  ${name.padEnd(26)} ${String(parts.total ?? "").padStart(6)}  tools ${String(parts.tools).padStart(5)}  system ${String(parts.system).padStart(4)}  ` +
  `messages ${String(parts.messages).padStart(5)} (Pi's estimate ${parts.messagesPi})`
console.log("What pi-context adds to a request (tokens, characters / 4), against Pi alone's first request:")
console.log(row("first request, no notes", figures.first_request_no_notes))
console.log(row("after a reset, no notes", figures.after_reset_no_notes))
console.log(row("after a reset, 5 × 20 notes", figures.after_reset_5x20_notes))
console.log(row("(Pi alone, whole request)", { ...alone, total: alone.tools + alone.system + alone.messages }))
console.log(`target: first request with no notes <= 1,200 tokens: ${figures.first_request_no_notes.total <= 1_200 ? "met" : "NOT met"}`)
mkdirSync(resultsDir, { recursive: true })
writeFileSync(join(resultsDir, "overhead.json"), `${JSON.stringify(figures, null, 2)}\n`)
process.exit(0)
