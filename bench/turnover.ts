/**
 * What one window turnover costs: pi-context's reset against Pi's native
 * compaction, on the same session.
 *
 * The session (identical prompts and scripted replies on both sides): a
 * 128,000-token window (the faux model, which reports usage as chars/4 of the
 * request) is filled by prompts of coding work, each a `bash` turn (`cat` of an
 * 8,000-character file), a `write` turn (a 6,000-character file) and a
 * 1,200-character text reply (about 3,800 tokens a prompt), 26 of them
 * (about 101,000 tokens on Pi alone, 104,000 with pi-context's boot and
 * reminders); then a prompt that pastes a ~14,000-token log, which the
 * model answers with text, so the window passes Pi's compaction threshold
 * (window - reserveTokens = 111,616 tokens); then the user's next prompt.
 * Both sides run with Pi's compaction enabled at its defaults (reserveTokens
 * 16,384, keepRecentTokens 20,000). "Pi" is Pi alone; "pi-context" is Pi with
 * pi-context at its defaults (its hard line is Pi's reserveTokens, so both cross
 * at the same point; pi-context cancels Pi's compaction and resets instead).
 * Pi's summarization calls are answered by the faux model with a 1,000-token
 * structured summary (a real model's summary may be longer; that only adds to
 * compaction_tokens).
 *
 * The turnover is everything between the old window's last model call and the
 * first model call that answers a user prompt in the new window ("the next
 * request"):
 * - compaction_calls: the summarization calls Pi makes (1, or 2 when the cut
 *   splits a turn);
 * - reset_calls: the model calls pi-context makes before the user's next
 *   prompt (a continuation it starts by itself), 0 when it makes none;
 * - *_tokens: the input + output tokens of those calls as the faux provider
 *   reports them (input, cache read and cache write, plus output; for Pi, the
 *   usage its compaction entries record), plus what the turnover puts into the
 *   next request in place of the window: Pi's summary message, or pi-context's
 *   hidden boot and continuation (chars/4 of each message as sent). What the
 *   next request carries anyway is not counted: the user's prompt, the system
 *   prompt and tools, and the ~20,000 tokens of recent messages Pi's compaction
 *   keeps verbatim (printed below, for context, as the next request's size).
 *
 * Not counted on either side: what happens before the turnover. The faux
 * model here ignores pi-context's guidance and warning (each a short hidden
 * message in the requests after it), so the reset is automatic and carries the
 * digest. A model that heeds the warning spends one more call on the full
 * window (its notes_write and wipe_memory turn: about the window's size in
 * input, mostly a prefix-cache read) to write the notes it chose to keep.
 *
 * Writes bench/results/turnover.json.
 *
 *   npm exec -- node bench/turnover.ts
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { AssistantMessage, Context as ProviderContext } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { CustomType } from "../src/kernel/protocol.ts"
import { createPiContext } from "../src/main.ts"
import { conversation } from "../test/support/entries.ts"
import { createHarness, type Harness } from "../test/support/sdkHarness.ts"

const contextWindow = 128_000
const CHUNK_CHARS = 8_000
const CODE_CHARS = 6_000
const REPLY_CHARS = 1_200
/** Prompts of work before the log: the same on both sides, about 101,000 tokens on Pi alone. */
const STEPS = 26
const LOG_TOKENS = 14_000
const SUMMARY_TOKENS = 1_000
const SUMMARY_MARK = "## Goal"

const summaryText = (() => {
  const sections = ["## Goal", "## Constraints & Preferences", "## Progress", "## Key Decisions", "## Next Steps", "## Critical Context"]
  const body = sections.map((title, i) => `${title}\n${`- point ${i}: the build reads chunk files and reports on them. `.repeat(14)}`).join("\n\n")
  return body.padEnd(SUMMARY_TOKENS * 4, " details.")
})()

/** Pi's summarization requests open with its summarization system prompt (the system message of the transcript). */
const isSummarization = (context: ProviderContext) =>
  JSON.stringify(context.messages[0] ?? {}).includes("You are a context summarization assistant") ||
  (context.systemPrompt ?? "").startsWith("You are a context summarization assistant")

const usageTokens = (usage: AssistantMessage["usage"] | undefined) =>
  usage === undefined ? 0 : usage.input + usage.cacheRead + usage.cacheWrite + usage.output

/** chars/4 of the messages of `request` that contain `needle`, as the faux provider counts a message. */
const tokensOfMessages = (request: ProviderContext | undefined, needles: ReadonlyArray<string>) =>
  request === undefined ? 0 : conversation(request).filter((line) => needles.some((n) => line.includes(n))).reduce((sum, line) => sum + Math.ceil(line.length / 4), 0)

const requestTokens = (request: ProviderContext | undefined) =>
  request === undefined ? 0 : conversation(request).reduce((sum, line) => sum + Math.ceil(line.length / 4), 0)

interface Side {
  readonly calls: number
  readonly tokens: number
  readonly nextRequestTokens: number
  readonly carried: number
  readonly timeline: string
}

const run = async (withPiContext: boolean): Promise<Side> => {
  const h: Harness = await createHarness({
    contextWindow,
    loadPackage: false,
    extraExtensions: withPiContext ? [createPiContext()] : [],
    settings: { compaction: { enabled: true } },
    tools: ["bash", "write"]
  })
  try {
    const chunk = Array.from({ length: CHUNK_CHARS / 80 }, (_, i) => `line ${String(i).padStart(4, "0")}: ${"chunk data ".repeat(6)}`.padEnd(79, ".")).join("\n")
    const code = (step: number) =>
      Array.from({ length: CODE_CHARS / 60 }, (_, i) => `export const row_${step}_${i} = parseRow(${i}) // ported`.padEnd(59, " ")).join("\n")
    const report = (step: number) => `Step ${step}: ${"I read the chunk, ported its rows to src, and checked the types. ".repeat(REPLY_CHARS / 66)}`
    const queue: Array<AssistantMessage> = []
    const kinds: Array<string> = []
    // One dispatcher per model call: a summarization request gets the summary, any other the next scripted reply.
    const dispatch = (context: ProviderContext): AssistantMessage => {
      if (isSummarization(context)) {
        kinds.push("summarize")
        return fauxAssistantMessage(summaryText)
      }
      kinds.push("turn")
      return queue.shift() ?? fauxAssistantMessage("(unscripted)")
    }
    const prompt = async (text: string, replies: ReadonlyArray<AssistantMessage>) => {
      queue.push(...replies)
      h.script(Array.from({ length: replies.length + 3 }, () => dispatch))
      await h.prompt(text)
      h.faux.setResponses([])
    }

    const used = () => h.session.getContextUsage()?.tokens ?? 0
    let n = 0
    for (; n < STEPS; n++) {
      writeFileSync(join(h.dirs.cwd, `chunk-${n}.txt`), chunk)
      await prompt(`Step ${n}: read chunk ${n}, port it to TypeScript and tell me what you did.`, [
        fauxAssistantMessage([fauxToolCall("bash", { command: `cat chunk-${n}.txt` })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxToolCall("write", { path: `src/chunk-${n}.ts`, content: code(n) })], { stopReason: "toolUse" }),
        fauxAssistantMessage(report(n))
      ])
    }
    const filled = used()
    const log = `Here is the failing build log:\n${"ERROR build step failed at src/module.ts:42 expected token\n".repeat(Math.ceil((LOG_TOKENS * 4) / 58))}`
    await prompt(log, [fauxAssistantMessage("The log shows one repeated parse error at src/module.ts:42.")])
    const beforeNext = h.requests.length
    await prompt("Next step: fix that parse error.", [fauxAssistantMessage("Fixing it now.")])

    const entries: ReadonlyArray<SessionEntry> = h.entries()
    const runs = kinds.reduce<Array<[string, number]>>((acc, kind) => {
      const last = acc.at(-1)
      if (last !== undefined && last[0] === kind) last[1]++
      else acc.push([kind, 1])
      return acc
    }, [])
    const timeline = `filled to ${filled} tokens in ${n} prompts; model calls in order: ${runs.map(([kind, count]) => `${count} ${kind}`).join(", ")}`
    if (!withPiContext) {
      const compactions = entries.filter((e) => e.type === "compaction")
      const calls = kinds.filter((k) => k === "summarize").length
      const usage = compactions.reduce((sum, e) => sum + usageTokens((e as { usage?: AssistantMessage["usage"] }).usage), 0)
      // The next request: the first ordinary call after the last summarization.
      const lastSummary = kinds.lastIndexOf("summarize")
      const next = lastSummary === -1 ? undefined : h.requests[lastSummary + 1]
      const carried = tokensOfMessages(next, [SUMMARY_MARK])
      return { calls, tokens: usage + carried, nextRequestTokens: requestTokens(next), carried, timeline }
    }
    const markerAt = entries.findIndex((e) => e.type === "custom" && e.customType === CustomType.resetMarker)
    if (markerAt === -1) throw new Error(`pi-context wrote no reset (${timeline})`)
    const windowId = (entries[markerAt] as { data: { windowId: string } }).data.windowId
    const inNew = (r: ProviderContext) => conversation(r).some((line) => line.includes(`Current window: ${windowId}`))
    const firstNew = h.requests.findIndex(inNew)
    // Calls in the new window that no user prompt asked for: from its first request up to the user's next prompt.
    const extra = firstNew === -1 ? [] : h.requests.slice(firstNew, Math.max(firstNew, beforeNext))
    const nextUser = entries.findLastIndex((e) => e.type === "message" && e.message.role === "user")
    const extraUsage = entries.slice(markerAt, nextUser).reduce(
      (sum, e) => sum + (e.type === "message" && e.message.role === "assistant" ? usageTokens(e.message.usage) : 0),
      0
    )
    const next = h.requests[Math.max(firstNew, beforeNext)]
    const carried = tokensOfMessages(next, ["## Context window", "Your context window was just reset"])
    return { calls: extra.length, tokens: extraUsage + carried, nextRequestTokens: requestTokens(next), carried, timeline }
  } finally {
    h.faux.setResponses([])
    await h.dispose()
  }
}

const pi = await run(false)
const withPiContext = await run(true)
const figures = {
  reset_calls: withPiContext.calls,
  reset_tokens: withPiContext.tokens,
  compaction_calls: pi.calls,
  compaction_tokens: pi.tokens
}

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "results")
mkdirSync(resultsDir, { recursive: true })
writeFileSync(join(resultsDir, "turnover.json"), `${JSON.stringify(figures, null, 2)}\n`)

console.log("one window turnover on a 128,000-token window (faux model)")
console.log(`  Pi compaction: ${pi.calls} call(s), ${pi.tokens} tokens (summary carried: ${pi.carried}); next request ${pi.nextRequestTokens} tokens`)
console.log(`                 ${pi.timeline}`)
console.log(`  pi-context:    ${withPiContext.calls} call(s), ${withPiContext.tokens} tokens (boot + continuation carried: ${withPiContext.carried}); next request ${withPiContext.nextRequestTokens} tokens`)
console.log(`                 ${withPiContext.timeline}`)
console.log(JSON.stringify(figures))
