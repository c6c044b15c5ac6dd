/**
 * Cost of building one provider request on a 50,000-entry session with 20
 * windows, with pi-context loaded vs Pi alone.
 *
 * Both sides run Pi's real session (`createAgentSession` through the SDK
 * harness, an in-memory SessionManager preloaded with synthetic entries) and
 * time exactly what Pi's agent loop runs before each LLM call
 * (pi-agent-core `streamAssistantResponse`): `agent.transformContext(messages)`
 * — Pi's extension runner `emitContext` (a structuredClone of the context, then
 * every `context` / `context_with_system` handler) — and `agent.convertToLlm`.
 * With pi-context that includes its real `context_with_system` handler: the
 * runtime hop, the window lookup (`PiSession.branchTail` walking back to the
 * last marker, classifying the tail), the projection and the budget
 * observation (which reads Pi's `getContextUsage()`).
 *
 * The same turns on both sides, in the shape each writes at its 19
 * boundaries (bench/support/syntheticSession.ts): Pi alone its retain-none
 * compaction (its context starts after it); pi-context what a reset writes,
 * its marker, a context edit per entry Pi's context held, its hidden boot and
 * continuation (and a root boot), nothing compacted, so Pi's chat keeps
 * every window: Pi's own context building (`buildContextEntries`,
 * `buildSessionProjection`) then goes through every entry of the session,
 * several times per model call. The two sessions are measured alternately,
 * after one real warm-up request each through the agent loop (faux model).
 *
 * Then whole prompts (a faux reply each) on three sessions alternately: Pi
 * alone, pi-context as resets write it, and pi-context on the shape a reset
 * would leave if Pi let one entry leave the ended window out of its context
 * without its TUI redrawing the chat from it (a compaction before each
 * marker, as resets wrote before they kept the chat): what Pi's API would
 * need to give for a prompt as fast as Pi alone's.
 *
 * The whole measurement runs in six separate processes and the figures are
 * the medians across them. Within one process, the session opened first
 * builds its requests measurably slower (swapping the order swaps the gap),
 * so half the processes open the session with pi-context first and half open
 * Pi alone first, and the ratio is the geometric mean of the six.
 *
 * Writes bench/results/projection.json. Never asserts on time.
 *
 *   npm exec -- node bench/projection.ts
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { classifyEntry, type RawEntry } from "../src/kernel/entries.ts"
import { projectRequest } from "../src/window/projection.ts"
import { CustomType } from "../src/kernel/protocol.ts"
import { createHarness, type Harness, repoRoot } from "../test/support/sdkHarness.ts"
import { type Boundaries, syntheticSession, WINDOWS, windowFromLeaf } from "./support/syntheticSession.ts"
import { median } from "./support/stats.ts"

const ROUNDS = 100
const WARMUP_ROUNDS = 10
const PROCESSES = 6
const orderFlag = "PI_CONTEXT_BENCH_WITHOUT_FIRST"
const childFlag = "PI_CONTEXT_BENCH_CHILD"
const resultPrefix = "RESULT "

interface Figures {
  readonly request_ms_with: number
  readonly request_ms_without: number
  readonly ratio: number
  readonly hook_ms: number
  readonly same_session_ratio: number
  readonly prompt_ms_with: number
  readonly prompt_ms_without: number
  readonly prompt_ms_compaction_shape: number
  readonly prompt_ratio: number
  readonly prompt_ratio_compaction_shape: number
}

const PROMPT_ROUNDS = 20
const PROMPT_WARMUP = 3


if (process.env[childFlag] === undefined) {
  const runs: Array<Figures> = []
  for (let run = 1; run <= PROCESSES; run++) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
      // Whichever session a process opens first builds its requests measurably slower (heap and JIT
      // state, not the session: swapping the order swaps the gap), so half the processes open Pi alone first.
      env: { ...process.env, [childFlag]: "1", [orderFlag]: run % 2 === 0 ? "1" : "" },
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024
    })
    if (child.status !== 0) throw new Error(`run ${run} failed:\n${child.stdout}\n${child.stderr}`)
    const lines = child.stdout.trimEnd().split("\n")
    console.log(`run ${run} of ${PROCESSES} (${run % 2 === 0 ? "Pi alone" : "pi-context"} opened first):`)
    for (const line of lines) if (!line.startsWith(resultPrefix)) console.log(`  ${line}`)
    runs.push(JSON.parse(lines.find((line) => line.startsWith(resultPrefix))!.slice(resultPrefix.length)) as Figures)
  }
  const r3 = (ms: number) => Math.round(ms * 1000) / 1000
  const figures = {
    request_ms_with: r3(median(runs.map((run) => run.request_ms_with))),
    request_ms_without: r3(median(runs.map((run) => run.request_ms_without))),
    // A balanced crossover: the opened-first slowdown multiplies one order's ratios and divides the
    // other's, so the geometric mean of all of them cancels it, where a median would pick one side.
    ratio: r3(Math.exp(runs.reduce((sum, run) => sum + Math.log(run.ratio), 0) / runs.length)),
    same_session_ratio: r3(median(runs.map((run) => run.same_session_ratio))),
    prompt_ms_with: r3(median(runs.map((run) => run.prompt_ms_with))),
    prompt_ms_without: r3(median(runs.map((run) => run.prompt_ms_without))),
    prompt_ms_compaction_shape: r3(median(runs.map((run) => run.prompt_ms_compaction_shape))),
    prompt_ratio: r3(Math.exp(runs.reduce((sum, run) => sum + Math.log(run.prompt_ratio), 0) / runs.length)),
    prompt_ratio_compaction_shape: r3(Math.exp(runs.reduce((sum, run) => sum + Math.log(run.prompt_ratio_compaction_shape), 0) / runs.length))
  }
  console.log(`${PROCESSES} processes: median with ${figures.request_ms_with} ms, without ${figures.request_ms_without} ms; ratio ${figures.ratio} (geometric mean) ` +
    `(per process: ${runs.map((run) => r3(run.ratio)).join(", ")}); pi-context's own handler ${r3(median(runs.map((run) => run.hook_ms)))} ms; ` +
    `same marked session with the handler on vs off: ratio ${figures.same_session_ratio}`)
  console.log(`target: ratio < 1.10 -> ${figures.ratio < 1.1 ? "met" : "MISSED"}`)
  console.log(`whole prompt: with ${figures.prompt_ms_with} ms, without ${figures.prompt_ms_without} ms, ratio ${figures.prompt_ratio} (geometric mean); ` +
    `on the compaction shape ${figures.prompt_ms_compaction_shape} ms, ratio ${figures.prompt_ratio_compaction_shape}`)
  console.log(`target: whole prompt at most 1.2x Pi alone's -> ${figures.prompt_ratio <= 1.2 ? "met" : "MISSED"} ` +
    `(the compaction shape: ${figures.prompt_ratio_compaction_shape <= 1.2 ? "met" : "MISSED"})`)
  const out = join(dirname(fileURLToPath(import.meta.url)), "results", "projection.json")
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`)
  process.exit(0)
}

interface Side {
  readonly name: string
  readonly h: Harness
  readonly samples: Array<number>
  /** Time spent inside pi-context's own `context_with_system` handler, per request. */
  readonly hookSamples: Array<number>
}

type Handler = (event: unknown, ctx: unknown) => unknown
interface RunnerExtension {
  readonly path: string
  readonly handlers: Map<string, Array<Handler>>
}

/** Wraps the `context_with_system` handlers of the extension loaded from this repo with a stopwatch. */
const timeOwnHook = (h: Harness, samples: Array<number>): number => {
  const runner = (h.session as unknown as { _extensionRunner?: { extensions: ReadonlyArray<RunnerExtension> } })._extensionRunner
  let wrapped = 0
  for (const extension of runner?.extensions ?? []) {
    if (!extension.path.startsWith(repoRoot)) continue
    const handlers = extension.handlers.get("context_with_system") ?? []
    extension.handlers.set("context_with_system", handlers.map((handler) => async (event, ctx) => {
      const start = performance.now()
      const result = await handler(event, ctx)
      samples.push(performance.now() - start)
      return result
    }))
    wrapped += handlers.length
  }
  return wrapped
}

const open = async (withMarkers: boolean, boundaries: Boundaries = "edits"): Promise<Side> => {
  const h = await createHarness({
    loadPackage: withMarkers,
    // A 2,500-entry window of tool work is ~250k tokens: a 1M-token model keeps it under the budget lines,
    // so the warm-up request is an ordinary one (no automatic reset).
    contextWindow: 1_000_000,
    sessionManager: (cwd) => SessionManager.inMemory(cwd, undefined, syntheticSession(cwd, withMarkers, undefined, boundaries))
  })
  // One real request through Pi's loop: pi-context's runtime is loaded, Pi has usage, the hook has run once.
  h.script([fauxAssistantMessage("warm")])
  await h.prompt("warm up")
  if (h.errors.length > 0) throw new Error(h.errors.join("\n"))
  const hookSamples: Array<number> = []
  if (withMarkers && timeOwnHook(h, hookSamples) !== 1) throw new Error("expected one pi-context context_with_system handler")
  return { name: withMarkers ? "with" : "without", h, samples: [], hookSamples }
}

/**
 * A tool step of the running turn, as the loop leaves it before its next request: the assistant's call
 * and the tool's result appended to the session and to the agent's context. Every request so meets a new
 * leaf, as in Pi's loop (a hook may not assume the branch is unchanged since the last request).
 */
const toolStep = (h: Harness, n: number): void => {
  const id = `bench_call_${n}`
  const assistant = {
    role: "assistant" as const,
    content: [{ type: "toolCall" as const, id, name: "read", arguments: { path: `src/step${n}.ts` } }],
    api: "faux",
    provider: "faux",
    model: "faux-1",
    usage: { input: 1000, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 1020, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse" as const,
    timestamp: Date.now()
  }
  const result = {
    role: "toolResult" as const,
    toolCallId: id,
    toolName: "read",
    content: [{ type: "text" as const, text: `contents of src/step${n}.ts\n`.repeat(10) }],
    details: {},
    isError: false,
    timestamp: Date.now()
  }
  for (const message of [assistant, result]) h.session.sessionManager.appendMessage(message as never)
  h.session.agent.state.messages = [...h.session.agent.state.messages, assistant as never, result as never]
}

/** convertToLlm's share of each request, per harness. */
const convertSamples = new Map<Harness, Array<number>>()

/** What Pi's agent loop does before each LLM call: transformContext (extension hooks) then convertToLlm. */
const buildRequest = async (h: Harness): Promise<{ readonly ms: number; readonly messages: number }> => {
  const agent = h.session.agent
  const start = performance.now()
  const transformed = agent.transformContext === undefined ? agent.state.messages : await agent.transformContext(agent.state.messages)
  const converting = performance.now()
  const llm = await agent.convertToLlm(transformed)
  const end = performance.now()
  convertSamples.get(h)?.push(end - converting)
  return { ms: end - start, messages: llm.length }
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000

const withoutFirst = process.env[orderFlag] === "1"
const firstSide = await open(!withoutFirst)
const secondSide = await open(withoutFirst)
const withSide = withoutFirst ? secondSide : firstSide
const withoutSide = withoutFirst ? firstSide : secondSide
for (const side of [withSide, withoutSide]) convertSamples.set(side.h, [])
const entryCount = withSide.h.allEntries().length
const sizes = { with: 0, without: 0, agentWith: withSide.h.session.agent.state.messages.length, agentWithout: withoutSide.h.session.agent.state.messages.length }

// Sanity: the "with" request really is projected from the last window's boot.
const lastBoot = withSide.h.entries().filter((e) => e.type === "custom_message" && e.customType === CustomType.boot).at(-1) as
  | { details: { windowId: string } }
  | undefined
const warmRequest = JSON.stringify(withSide.h.requests[0]?.messages ?? [])
if (lastBoot === undefined || !warmRequest.includes(`Current window: ${lastBoot.details.windowId}`)) {
  throw new Error("the warm-up request was not projected from the last window's boot")
}

for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
  // Alternate which side goes first so drift and GC land on both.
  const order = round % 2 === 0 ? [withSide, withoutSide] : [withoutSide, withSide]
  for (const side of order) {
    toolStep(side.h, round)
    const { ms, messages } = await buildRequest(side.h)
    if (round >= WARMUP_ROUNDS) side.samples.push(ms)
    else {
      side.hookSamples.length = 0
      convertSamples.get(side.h)!.length = 0
    }
    if (side === withSide) sizes.with = messages
    else sizes.without = messages
  }
}

// Where the hook's time goes: its pure parts, timed alone on the same session (Pi's real SessionManager).
const manager = withSide.h.session.sessionManager
const agentMessages = withSide.h.session.agent.state.messages
const walk = () => windowFromLeaf(manager)
const part = (run: () => unknown): number => {
  const samples: Array<number> = []
  for (let i = 0; i < WARMUP_ROUNDS + ROUNDS; i++) {
    const start = performance.now()
    run()
    if (i >= WARMUP_ROUNDS) samples.push(performance.now() - start)
  }
  return median(samples)
}
const tail = walk()
const marker = classifyEntry(tail[0]!)
const windowId = marker._tag === "Marker" ? marker.windowId : ""
const classifiedTail = tail.map(classifyEntry)
const parts = {
  walk: part(walk),
  classify: part(() => tail.map(classifyEntry)),
  project: part(() => projectRequest(agentMessages, { id: windowId, isRoot: false, tail: classifiedTail })),
  usage: part(() => withSide.h.session.getContextUsage()),
  clone: part(() => structuredClone(agentMessages))
}
const leafWalk = part(() => {
  // The walk a request pays with the window cache: back from the leaf to the previous request's leaf (two steps).
  let entry = manager.getLeafEntry() as RawEntry | undefined
  for (let i = 0; i < 3 && entry !== undefined; i++) entry = manager.getEntry(entry.parentId as string) as RawEntry | undefined
})

// The same "with" session, pi-context's handler switched on and off in turn: what the hook itself
// adds, apart from what Pi's own build costs on the marked session shape (boots, continuations).
const ownHandlers = ((withSide.h.session as unknown as { _extensionRunner: { extensions: ReadonlyArray<RunnerExtension> } })
  ._extensionRunner.extensions).find((extension) => extension.path.startsWith(repoRoot))!
const installed = ownHandlers.handlers.get("context_with_system")!
const handlerOn: Array<number> = []
const handlerOff: Array<number> = []
for (let round = 0; round < WARMUP_ROUNDS + ROUNDS * 2; round++) {
  const on = round % 2 === 0
  ownHandlers.handlers.set("context_with_system", on ? installed : [])
  toolStep(withSide.h, WARMUP_ROUNDS + ROUNDS + round)
  const { ms } = await buildRequest(withSide.h)
  if (round >= WARMUP_ROUNDS) (on ? handlerOn : handlerOff).push(ms)
}
ownHandlers.handlers.set("context_with_system", installed)

// Whole prompts, a faux reply each, on the two sessions and on the compaction shape, in turn.
const compactionSide = await open(true, "compaction")
const promptSamples = new Map<Side, Array<number>>([[withSide, []], [withoutSide, []], [compactionSide, []]])
for (let round = 0; round < PROMPT_WARMUP + PROMPT_ROUNDS; round++) {
  const sides = [withSide, withoutSide, compactionSide]
  for (let i = 0; i < sides.length; i++) {
    const side = sides[(round + i) % sides.length]!
    side.h.script([fauxAssistantMessage(`reply ${round}`)])
    const start = performance.now()
    await side.h.prompt(`next step ${round}`)
    if (round >= PROMPT_WARMUP) promptSamples.get(side)!.push(performance.now() - start)
  }
}
for (const side of [withSide, withoutSide, compactionSide]) {
  if (side.h.errors.length > 0) throw new Error(side.h.errors.join("\n"))
}

await withSide.h.dispose()
await withoutSide.h.dispose()
await compactionSide.h.dispose()
const promptWith = median(promptSamples.get(withSide)!)
const promptWithout = median(promptSamples.get(withoutSide)!)
const promptCompaction = median(promptSamples.get(compactionSide)!)

const requestWith = median(withSide.samples)
const requestWithout = median(withoutSide.samples)
const ratio = requestWith / requestWithout

console.log(`provider request build on ${entryCount.toLocaleString("en-US")} entries, ${WINDOWS} windows (median of ${ROUNDS}):`)
console.log(`  request size: ${sizes.with} LLM messages with pi-context, ${sizes.without} without (agent context ${sizes.agentWith} / ${sizes.agentWithout})`)
console.log(`  with pi-context:    ${round3(requestWith)} ms (min ${round3(Math.min(...withSide.samples))}, max ${round3(Math.max(...withSide.samples))})`)
console.log(`  without (Pi alone): ${round3(requestWithout)} ms (min ${round3(Math.min(...withoutSide.samples))}, max ${round3(Math.max(...withoutSide.samples))})`)
console.log(`  overhead: ${round3(requestWith - requestWithout)} ms per request, ratio ${round3(ratio)}`)
console.log(`  of which convertToLlm: ${round3(median(convertSamples.get(withSide.h)!))} ms with, ${round3(median(convertSamples.get(withoutSide.h)!))} ms without`)
console.log(`  inside pi-context's context_with_system handler: median ${round3(median(withSide.hookSamples))} ms over ${withSide.hookSamples.length} ` +
  `(${round3(median(withSide.hookSamples) / requestWithout * 100)}% of Pi's own build)`)
console.log(`  hook parts alone (window of ${tail.length} entries): whole-window walk ${round3(parts.walk)} ms (per request, with the window cache: ${round3(leafWalk)} ms), classify ${round3(parts.classify)} ms, ` +
  `projection ${round3(parts.project)} ms, Pi getContextUsage (no longer called per request) ${round3(parts.usage)} ms; Pi's own structuredClone of the context ${round3(parts.clone)} ms`)
console.log(`  same marked session, pi-context's handler on vs off: ${round3(median(handlerOn))} vs ${round3(median(handlerOff))} ms, ` +
  `ratio ${round3(median(handlerOn) / median(handlerOff))} (the rest of the with/without gap is Pi's build on the marked session)`)
console.log(`  target: ratio < 1.10 -> ${ratio < 1.1 ? "met" : "MISSED"}; overhead < 1 ms -> ${requestWith - requestWithout < 1 ? "met" : "MISSED"}`)
console.log(`  whole prompt (median of ${PROMPT_ROUNDS}): with pi-context ${round3(promptWith)} ms, Pi alone ${round3(promptWithout)} ms, ` +
  `ratio ${round3(promptWith / promptWithout)}; pi-context on the compaction shape ${round3(promptCompaction)} ms, ratio ${round3(promptCompaction / promptWithout)}`)

const figures: Figures = {
  request_ms_with: round3(requestWith),
  request_ms_without: round3(requestWithout),
  ratio: round3(ratio),
  hook_ms: round3(median(withSide.hookSamples)),
  same_session_ratio: round3(median(handlerOn) / median(handlerOff)),
  prompt_ms_with: round3(promptWith),
  prompt_ms_without: round3(promptWithout),
  prompt_ms_compaction_shape: round3(promptCompaction),
  prompt_ratio: round3(promptWith / promptWithout),
  prompt_ratio_compaction_shape: round3(promptCompaction / promptWithout)
}
console.log(`${resultPrefix}${JSON.stringify(figures)}`)
