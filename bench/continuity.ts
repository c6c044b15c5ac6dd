/**
 * Continuity across an automatic reset: what of the ending window reaches
 * the model in the new window's first provider request.
 *
 * 200 seeded random sessions, each on Pi's real agent loop (the SDK harness,
 * the faux model, Pi's real `write`, `edit` and `bash` tools in a temp dir,
 * pi-context with an injected policy on a 40,000-token window whose hard line
 * is 10,000 tokens left). A session is 0-12 earlier prompts (a text reply;
 * tool work: files written or edited, bash commands that pass or fail, then
 * a reply; or a run the user aborts), then a final prompt with 0-3 tool
 * turns, then one automatic reset at a random point, by one of:
 * - the hard line inside a run: a tool turn writes a ~30,000-token file; the
 *   model then ignores the close-out it is given (another tool call, or a
 *   text reply, which ends the run and so answers the request);
 * - a provider overflow (a "prompt is too long" error) inside the run;
 * - the hard line on a finished reply (a ~30,000-token text reply); the user
 *   then sends another prompt.
 * The new window's first request is the first request whose boot names the
 * new window (the continuation's request, or the user's next prompt's).
 *
 * Figures (each over the sessions where it applies, pooled; a session that
 * never reset counts as a loss in each):
 * - pending_request_rate: of the sessions whose last user message was not
 *   answered when the boundary was written (no assistant text reply that
 *   ended a run after it: read from the session's own entries, independently
 *   of pi-context's code), the share whose first request quotes it (its
 *   first 200 characters);
 * - files_recall: of the paths the window's `write`/`edit` calls wrote
 *   (results not errors), the share the first request names;
 * - failing_command_rate: of the sessions with a failed bash command, the
 *   share whose first request names the last one (its exact command);
 * - digest_tokens_max: the largest digest (from its heading to the end of the
 *   continuation, chars/4), 0 when no continuation carries one.
 *
 * Writes bench/results/continuity.json. Targets: 1.0, >= 0.95, 1.0, <= 1500.
 *
 *   npm exec -- node bench/continuity.ts [sessions]
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type FauxResponseStep, fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { DigestHeading } from "../src/boot/digest.ts"
import { CustomType } from "../src/kernel/protocol.ts"
import { createPiContext } from "../src/main.ts"
import { conversation, ofCustomType, toolResults } from "../test/support/entries.ts"
import { createHarness, type Harness } from "../test/support/sdkHarness.ts"
import { estimateTokens } from "../src/kernel/tokenCount.ts"

const SESSIONS = Number(process.argv[2] ?? 200)
const SEED = 9
const contextWindow = 40_000
const policy = { guidanceLine: 14_000, warningLine: 12_000, hardLine: 10_000 }
/** A tool turn or reply this big crosses the hard line by itself. */
const BIG = 120_000

/** mulberry32: a small seeded PRNG, so every run plays the same sessions. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

type Work =
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | { readonly kind: "edit"; readonly path: string; readonly oldText: string; readonly newText: string }
  | { readonly kind: "bash"; readonly command: string; readonly fails: boolean }

type Prompt =
  | { readonly kind: "reply"; readonly text: string }
  | { readonly kind: "tools"; readonly text: string; readonly work: ReadonlyArray<Work> }
  | { readonly kind: "abort"; readonly text: string }

type Trigger = "hardLineToolThenTool" | "hardLineToolThenReply" | "overflow" | "finishedReply"

interface Plan {
  readonly prior: ReadonlyArray<Prompt>
  readonly final: { readonly text: string; readonly work: ReadonlyArray<Work>; readonly trigger: Trigger }
}

const topics = ["parser", "config loader", "router", "migration", "cache", "schema", "token counter", "queue", "index", "logger"]
const verbs = ["Refactor", "Fix", "Document", "Speed up", "Add tests for", "Rename the options of", "Simplify", "Review"]

const planSession = (n: number, random: () => number): Plan => {
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
  const written = new Map<string, string>()
  let counter = 0
  const request = (i: number) => {
    const base = `Session ${n} request ${i}: ${pick(verbs)} the ${pick(topics)} and tell me what changed.`
    // One request in ten is long: the digest quotes it cut, with the pointer to the history tools.
    return random() < 0.1 ? `${base} ${"Keep the public interface stable while you do it. ".repeat(40)}` : base
  }
  const work = (): Work => {
    const id = `${n}-${counter++}`
    const roll = random()
    if (roll < 0.35 || written.size === 0) {
      const path = `src/${pick(topics).replace(/ /g, "-")}/mod-${id}.ts`
      const content = `export const value_${id.replace("-", "_")} = ${Math.floor(random() * 1000)}\n// marker-${id}\n`
      written.set(path, content)
      return { kind: "write", path, content }
    }
    if (roll < 0.5) {
      const [path, content] = pick([...written])
      const marker = /\/\/ (?:marker|edited)-[\d-]+/.exec(content)![0]
      const next = `// edited-${id}`
      written.set(path, content.replace(marker, next))
      return { kind: "edit", path, oldText: marker, newText: next }
    }
    const fails = random() < 0.45
    const command = fails
      ? pick([`test -f missing-${id}.txt`, `ls no-such-dir-${id}`, `grep -q needle-${id} absent-${id}.log`, `sh -c 'echo step ${id} failed >&2; exit 3'`])
      : pick([`echo ok-${id}`, `true # check ${id}`, `printf 'done %s\\n' ${id}`])
    return { kind: "bash", command, fails }
  }
  const prior = Array.from({ length: Math.floor(random() * 13) }, (_, i): Prompt => {
    const roll = random()
    if (roll < 0.25) return { kind: "reply", text: request(i) }
    if (roll < 0.4) return { kind: "abort", text: request(i) }
    return { kind: "tools", text: request(i), work: Array.from({ length: 1 + Math.floor(random() * 3) }, work) }
  })
  const finalWork = Array.from({ length: Math.floor(random() * 4) }, work)
  const trigger = pick<Trigger>(["hardLineToolThenTool", "hardLineToolThenReply", "overflow", "finishedReply"])
  return { prior, final: { text: request(prior.length), work: finalWork, trigger } }
}

const callOf = (w: Work) =>
  w.kind === "write"
    ? fauxToolCall("write", { path: w.path, content: w.content })
    : w.kind === "edit"
    ? fauxToolCall("edit", { path: w.path, edits: [{ oldText: w.oldText, newText: w.newText }] })
    : fauxToolCall("bash", { command: w.command })

const toolTurn = (w: Work) => fauxAssistantMessage([callOf(w)], { stopReason: "toolUse" })
const say = (text: string) => fauxAssistantMessage(text)
const overflowError = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long: 250000 tokens > 200000 maximum" })

const textOf = (entry: SessionEntry): string | undefined => {
  if (entry.type !== "message") return undefined
  const content = (entry.message as { content?: unknown }).content
  if (typeof content === "string") return content
  return Array.isArray(content) ? content.flatMap((p: { type: string; text?: string }) => (p.type === "text" && p.text ? [p.text] : [])).join("\n") : undefined
}

/** The oracle: the last user message before the boundary, and whether a text reply that ended a run follows it. */
const pendingAtBoundary = (before: ReadonlyArray<SessionEntry>): string | undefined => {
  let pending: string | undefined
  for (const entry of before) {
    if (entry.type !== "message") continue
    const message = entry.message as { role: string; stopReason?: string }
    if (message.role === "user") pending = textOf(entry)
    else if (message.role === "assistant" && message.stopReason === "stop" && (textOf(entry) ?? "").trim() !== "") pending = undefined
  }
  return pending
}

interface Outcome {
  readonly reset: boolean
  readonly pending: string | undefined
  readonly pendingCarried: boolean
  /** An answered request quoted as pending. */
  readonly answeredShownPending: boolean
  readonly files: number
  readonly filesNamed: number
  readonly lastFailure: string | undefined
  readonly lastFailureNamed: boolean
  readonly digestTokens: number | undefined
}

const runSession = async (n: number, plan: Plan): Promise<Outcome> => {
  const h: Harness = await createHarness({
    loadPackage: false,
    extraExtensions: [createPiContext({ policy })],
    contextWindow,
    tools: ["write", "edit", "bash"]
  })
  try {
    const written = new Set<string>()
    let lastFailure: string | undefined
    const record = (w: Work) => {
      if (w.kind === "bash") {
        if (w.fails) lastFailure = w.command
      } else written.add(w.path)
    }
    for (const prompt of plan.prior) {
      switch (prompt.kind) {
        case "reply":
          h.script([say(`Answer to ${prompt.text.slice(0, 40)}`)])
          await h.prompt(prompt.text)
          break
        case "tools":
          h.script([...prompt.work.map(toolTurn), say("Done: the change is in place.")])
          prompt.work.forEach(record)
          await h.prompt(prompt.text)
          break
        case "abort": {
          const step: FauxResponseStep = () => {
            // The user presses Escape while the model's command runs.
            setTimeout(() => void h.session.abort(), 0)
            return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 2" })], { stopReason: "toolUse" })
          }
          h.script([step])
          await h.prompt(prompt.text).catch(() => undefined)
          await h.waitForIdle()
          break
        }
      }
    }
    const { final } = plan
    final.work.forEach(record)
    const resume = say("Resuming in the fresh window.")
    switch (final.trigger) {
      case "hardLineToolThenTool":
      case "hardLineToolThenReply": {
        const big: Work = { kind: "write", path: `generated/table-${n}.ts`, content: `export const table = "${"t".repeat(BIG)}"\n` }
        record(big)
        const after = final.trigger === "hardLineToolThenTool"
          ? [fauxAssistantMessage([fauxToolCall("bash", { command: `echo carrying-on-${n}` })], { stopReason: "toolUse" }), say("Carried on.")]
          : [say("The table is generated.")]
        h.script([...final.work.map(toolTurn), toolTurn(big), ...after, resume, resume])
        break
      }
      case "overflow":
        h.script([...final.work.map(toolTurn), overflowError(), resume, resume])
        break
      case "finishedReply":
        h.script([...final.work.map(toolTurn), say(`Here is the whole report. ${"r".repeat(BIG)}`), resume, resume])
        break
    }
    await h.prompt(final.text)

    const branch = h.branch()
    // The plan must have played as written: every write and edit succeeded, every planned failure failed.
    const results = toolResults(branch)
    const refused = results.filter((r) => (r.toolName === "write" || r.toolName === "edit") && r.isError)
    if (refused.length > 0) throw new Error(`session ${n}: a planned write or edit failed: ${refused[0]!.text}`)
    const failed = results.filter((r) => r.toolName === "bash" && /exited with code [1-9]/.test(r.text)).length
    const planned = [...plan.prior.flatMap((p) => (p.kind === "tools" ? p.work : [])), ...final.work].filter((w) => w.kind === "bash" && w.fails).length
    if (failed < planned) throw new Error(`session ${n}: ${planned} commands should have failed, ${failed} did`)
    if (h.errors.length > 0) throw new Error(`session ${n}: ${h.errors.join("; ")}`)
    const markerAt = branch.findIndex((e) => e.type === "custom" && e.customType === CustomType.resetMarker)
    if (markerAt === -1) {
      return { reset: false, pending: final.text, pendingCarried: false, answeredShownPending: false, files: written.size, filesNamed: 0, lastFailure, lastFailureNamed: false, digestTokens: undefined }
    }
    const windowId = (branch[markerAt] as { data: { windowId: string } }).data.windowId
    const pending = pendingAtBoundary(branch.slice(0, markerAt))
    const inNewWindow = () => h.requests.find((r) => conversation(r).some((line) => line.includes(`Current window: ${windowId}`)))
    // A boundary at settlement makes no call: the user's next prompt opens the window.
    if (inNewWindow() === undefined) await h.prompt(`Session ${n}: what is next?`)
    const first = inNewWindow()
    const text = first === undefined ? "" : conversation(first).join("\n")
    const continuation = ofCustomType(branch.slice(markerAt), CustomType.continuation)[0] as { content?: unknown } | undefined
    const continuationText = typeof continuation?.content === "string" ? continuation.content : ""
    const digestAt = continuationText.indexOf(DigestHeading)
    const quoted = (request: string) => text.includes(Array.from(request.trim()).slice(0, 200).join(""))
    return {
      reset: true,
      pending,
      pendingCarried: pending !== undefined && quoted(pending),
      answeredShownPending: pending === undefined && /pending request/i.test(text) && quoted(final.text),
      files: written.size,
      filesNamed: [...written].filter((path) => text.includes(path)).length,
      lastFailure,
      lastFailureNamed: lastFailure !== undefined && text.includes(lastFailure),
      digestTokens: digestAt === -1 ? undefined : estimateTokens(continuationText.slice(digestAt))
    }
  } finally {
    h.faux.setResponses([])
    await h.dispose()
  }
}

const random = prng(SEED)
const outcomes: Array<Outcome> = []
const started = performance.now()
for (let n = 0; n < SESSIONS; n++) outcomes.push(await runSession(n, planSession(n, random)))
const seconds = (performance.now() - started) / 1000

const ratio = (hit: number, of: number) => (of === 0 ? 1 : Math.round((hit / of) * 1000) / 1000)
const withPending = outcomes.filter((o) => o.pending !== undefined || !o.reset)
const withFailure = outcomes.filter((o) => o.lastFailure !== undefined)
const files = outcomes.reduce((sum, o) => sum + o.files, 0)
const digests = outcomes.flatMap((o) => (o.digestTokens === undefined ? [] : [o.digestTokens]))
const figures = {
  pending_request_rate: ratio(withPending.filter((o) => o.pendingCarried).length, withPending.length),
  files_recall: ratio(outcomes.reduce((sum, o) => sum + o.filesNamed, 0), files),
  failing_command_rate: ratio(withFailure.filter((o) => o.lastFailureNamed).length, withFailure.length),
  digest_tokens_max: digests.length === 0 ? 0 : Math.max(...digests)
}

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "results")
mkdirSync(resultsDir, { recursive: true })
writeFileSync(join(resultsDir, "continuity.json"), `${JSON.stringify(figures, null, 2)}\n`)

console.log(`continuity over ${SESSIONS} sessions (seed ${SEED}, ${seconds.toFixed(1)} s)`)
console.log(`  sessions reset:             ${outcomes.filter((o) => o.reset).length} of ${SESSIONS}`)
console.log(`  pending request carried:    ${withPending.filter((o) => o.pendingCarried).length} of ${withPending.length}   (target 1.0)`)
console.log(`  answered shown as pending:  ${outcomes.filter((o) => o.answeredShownPending).length} of ${outcomes.length - withPending.length}`)
console.log(`  files named:                ${outcomes.reduce((sum, o) => sum + o.filesNamed, 0)} of ${files}   (target >= 0.95)`)
console.log(`  last failed command named:  ${withFailure.filter((o) => o.lastFailureNamed).length} of ${withFailure.length}   (target 1.0)`)
console.log(`  digests found:              ${digests.length} of ${outcomes.filter((o) => o.reset).length}, largest ${figures.digest_tokens_max} tokens   (target <= 1500)`)
console.log(JSON.stringify(figures))
