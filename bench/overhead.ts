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
 * And over HTTP, as a provider receives it: the eval's first request of a task
 * on an OpenAI-compatible endpoint on localhost, with pi-context and with Pi
 * alone (its compaction arm), the JSON body's characters / 4.
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

/** The eval's first request body of a task, per arm, as an OpenAI-compatible endpoint on localhost receives it. */
const overHttp = async (): Promise<Record<string, number>> => {
  const { createServer } = await import("node:http")
  const { mkdtempSync, writeFileSync: write } = await import("node:fs")
  const { tmpdir } = await import("node:os")
  const { parseArgs } = await import("../eval/harness/args.ts")
  const { runPool } = await import("../eval/harness/pool.ts")
  const { jobsFor } = await import("../eval/run.ts")
  const bodies: Array<string> = []
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => void (body += chunk.toString()))
    request.on("end", () => {
      bodies.push(body)
      response.writeHead(200, { "content-type": "text/event-stream" })
      const chunk = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`)
      chunk({ id: "c", object: "chat.completion.chunk", model: "m1", choices: [{ index: 0, delta: { role: "assistant", content: "All done." }, finish_reason: null }] })
      chunk({ id: "c", object: "chat.completion.chunk", model: "m1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })
      response.end("data: [DONE]\n\n")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  const userAgentDir = mkdtempSync(join(tmpdir(), "pi-context-overhead-"))
  write(join(userAgentDir, "models.json"), JSON.stringify({
    providers: { local: { baseUrl: `http://127.0.0.1:${port}/v1`, api: "openai-completions", apiKey: "local", models: [{ id: "m1", contextWindow: 200_000, maxTokens: 4_000 }] } }
  }))
  const first: Record<string, number> = {}
  for (const arm of ["compaction", "pi-context"]) {
    bodies.length = 0
    const [spec] = jobsFor(parseArgs(["--model", "local/m1", "--tasks", "rename-symbol", "--seeds", "1", "--arms", arm, "--out", mkdtempSync(join(tmpdir(), "pi-context-overhead-out-"))]), process.cwd())
    await runPool([{ ...spec!, userAgentDir, retry: { maxRetries: 0, baseDelayMs: 10 } }], { jobs: 1, maxUsd: undefined })
    first[arm] = Math.ceil(bodies[0]!.length / 4)
  }
  server.close()
  return first
}

const alone = await piAlone()
const empty = await withPiContext(0)
const full = await withPiContext(20)
const figures = {
  first_request_no_notes: minus(empty.first, alone),
  after_reset_no_notes: minus(empty.afterReset, alone),
  after_reset_5x20_notes: minus(full.afterReset, alone),
  pi_alone: alone,
  over_http: await overHttp()
}

const row = (name: string, parts: Parts & { readonly total?: number }) =>
  `  ${name.padEnd(26)} ${String(parts.total ?? "").padStart(6)}  tools ${String(parts.tools).padStart(5)}  system ${String(parts.system).padStart(4)}  ` +
  `messages ${String(parts.messages).padStart(5)} (Pi's estimate ${parts.messagesPi})`
console.log("What pi-context adds to a request (tokens, characters / 4), against Pi alone's first request:")
console.log(row("first request, no notes", figures.first_request_no_notes))
console.log(row("after a reset, no notes", figures.after_reset_no_notes))
console.log(row("after a reset, 5 × 20 notes", figures.after_reset_5x20_notes))
console.log(row("(Pi alone, whole request)", { ...alone, total: alone.tools + alone.system + alone.messages }))
const httpAdded = figures.over_http["pi-context"]! - figures.over_http.compaction!
console.log(`over HTTP (an OpenAI-compatible body, the eval's first request of a task): Pi alone ${figures.over_http.compaction} tokens, with pi-context ${figures.over_http["pi-context"]}: +${httpAdded}`)
console.log(`target: first request with no notes <= 1,200 tokens: ${figures.first_request_no_notes.total <= 1_200 && httpAdded <= 1_200 ? "met" : "NOT met"}`)
mkdirSync(resultsDir, { recursive: true })
writeFileSync(join(resultsDir, "overhead.json"), `${JSON.stringify(figures, null, 2)}\n`)
process.exit(0)
