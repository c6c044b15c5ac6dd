/** report.md from the runs: per task and arm, then overall. */
import { MaskAfterTurns } from "../masking/extension.ts"
import { priceOf } from "./metrics.ts"
import { compactionAt } from "./settings.ts"
import { familySection } from "./families.ts"
import { countedRuns, pairedSuccess, pairedTokenRatio, pairsOf, pairsToTell } from "./paired.ts"
import { isInfrastructureFailure, type RunResult } from "./types.ts"

/** A model whose prices (Pi's catalog, dollars per million tokens) put a figure on scripted runs' tokens. */
export interface PriceReference {
  readonly name: string
  readonly cost: { readonly input: number; readonly output: number; readonly cacheRead: number; readonly cacheWrite: number }
}

/** Wilson score interval at 95% for `successes` of `n`. */
export const wilson = (successes: number, n: number): { readonly low: number; readonly high: number } => {
  if (n === 0) return { low: 0, high: 1 }
  const z = 1.959964
  const p = successes / n
  const denominator = 1 + (z * z) / n
  const centre = (p + (z * z) / (2 * n)) / denominator
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

/** The arms of `results` in a fixed order (pi-context, compaction, masking, then the others by name), whatever order the runs finished in. */
export const armsOf = (results: ReadonlyArray<RunResult>): ReadonlyArray<string> => {
  const known = ["pi-context", "compaction", "masking"]
  const rank = (arm: string) => (known.includes(arm) ? known.indexOf(arm) : known.length)
  return [...new Set(results.map((result) => result.arm))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
}

export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const integer = (value: number) => Math.round(value).toLocaleString("en-US")
const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`
const percent = (value: number) => `${Math.round(value * 100)}%`

export const totalTokens = (result: RunResult): number => result.tokens.input + result.tokens.output + result.tokens.cacheRead + result.tokens.cacheWrite

/** Every token of the arm's runs over the tasks they solved: what one solved task costs, failures included. */
export const tokensPerSolved = (runs: ReadonlyArray<RunResult>): number | undefined => {
  const solved = runs.filter((run) => run.success).length
  return solved === 0 ? undefined : runs.reduce((sum, run) => sum + totalTokens(run), 0) / solved
}

/**
 * Runs per arm needed to tell success rates `p1` and `p2` apart (two-sided
 * 95% confidence, 80% power), by the normal approximation for two proportions.
 */
export const runsToTell = (p1: number, p2: number): number => {
  const zAlpha = 1.959964
  const zBeta = 0.841621
  const mean = (p1 + p2) / 2
  const n = (zAlpha * Math.sqrt(2 * mean * (1 - mean)) + zBeta * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / (p1 - p2) ** 2
  return Math.ceil(n)
}

const successText = (runs: ReadonlyArray<RunResult>): string => {
  const successes = runs.filter((run) => run.success).length
  const interval = wilson(successes, runs.length)
  return `${successes}/${runs.length} (${percent(successes / Math.max(1, runs.length))}, ${percent(interval.low)}–${percent(interval.high)})`
}

/** The mean recall of every probe of the runs, with their count; a dash when no turnover was probed. */
export const probeRecallText = (runs: ReadonlyArray<RunResult>): string => {
  const probes = runs.flatMap((run) => run.probes ?? [])
  if (probes.length === 0) return "–"
  return `${percent(probes.reduce((sum, probe) => sum + probe.recall, 0) / probes.length)} (${probes.length})`
}

/** The figures a user decides on, one row per arm: what a solved task costs, how often, and how the runs went. */
export const decisionRows = (all: ReadonlyArray<RunResult>): ReadonlyArray<string> => {
  const results = countedRuns(all)
  const arms = armsOf(results)
  const baseline = tokensPerSolved(results.filter((run) => run.arm === "compaction"))
  return [
    "| arm | tokens per solved task | against compaction | success (95% interval) | probe recall | stuck runs | turnovers (median) | model calls (median) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...arms.map((arm) => {
      const runs = results.filter((run) => run.arm === arm)
      const perSolved = tokensPerSolved(runs)
      const against = perSolved === undefined || baseline === undefined ? "–" : (perSolved / baseline).toFixed(2)
      return `| ${arm} | ${perSolved === undefined ? "none solved" : integer(perSolved)} | ${against} | ${successText(runs)} | ${probeRecallText(runs)} | ` +
        `${runs.filter((run) => run.stuck).length} | ${median(runs.map((run) => run.turnovers.total))} | ${integer(median(runs.map((run) => run.modelCalls)))} |`
    })
  ]
}

const signed = (value: number) => `${value > 0 ? "+" : value < 0 ? "−" : "±"}${Math.abs(Math.round(value * 100))}`

/** Each arm against compaction on the same tasks and seeds: the success difference and the token ratio, with their intervals. */
export const pairedRows = (results: ReadonlyArray<RunResult>): ReadonlyArray<string> => {
  const arms = armsOf(results).filter((arm) => arm !== "compaction")
  if (!results.some((run) => run.arm === "compaction") || arms.length === 0) return []
  return [
    "| arm | pairs | success difference, points (95% interval) | only this arm solved | only compaction solved | tokens against compaction, pairs both solved (95% interval) |",
    "| --- | --- | --- | --- | --- | --- |",
    ...arms.map((arm) => {
      const pairs = pairsOf(results, arm, "compaction")
      const success = pairedSuccess(pairs)
      const ratio = pairedTokenRatio(pairs, totalTokens)
      return `| ${arm} | ${success.pairs} | ${signed(success.difference)} (${signed(success.low)} to ${signed(success.high)}) | ${success.onlyArm} | ${success.onlyBaseline} | ` +
        `${ratio === undefined ? "–" : `${ratio.ratio.toFixed(2)} (${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)}, ${ratio.pairs} pairs)`} |`
    })
  ]
}

/** Success apart for the runs whose window actually turned over, once and three times. */
const turnedOverRows = (results: ReadonlyArray<RunResult>): ReadonlyArray<string> => [
  "| arm | runs with a turnover: success | runs with three or more: success | runs with none |",
  "| --- | --- | --- | --- |",
  ...armsOf(results).map((arm) => {
    const runs = results.filter((run) => run.arm === arm)
    const atLeast = (count: number) => runs.filter((run) => run.turnovers.total >= count)
    return `| ${arm} | ${atLeast(1).length === 0 ? "–" : successText(atLeast(1))} | ${atLeast(3).length === 0 ? "–" : successText(atLeast(3))} | ${runs.length - atLeast(1).length} |`
  })
]

/** The pairs a user needs per model, said where the figures are read. */
export const pairsNeededText = (): string =>
  `Paired on the same tasks and seeds, seeing a 10-point difference in success when a fifth of the pairs disagree takes about ${pairsToTell(0.1, 0.2)} pairs, ` +
  `and a 20-point one about ${pairsToTell(0.2, 0.3)} (McNemar, 95% confidence, 80% power), on each model: a model's figures say nothing of another's.`

const row = (name: string, runs: ReadonlyArray<RunResult>): string => {
  const answered = runs.flatMap((run) => run.requests)
  return `| ${name} | ${successText(runs)} | ` +
    `${integer(median(runs.map(totalTokens)))} | ${integer(median(runs.map((run) => run.tokens.input + run.tokens.cacheRead + run.tokens.cacheWrite)))} | ` +
    `${usd(median(runs.map((run) => run.costUsd)))} | ${integer(median(runs.map((run) => run.modelCalls)))} | ` +
    `${median(runs.map((run) => run.turnovers.total))} | ${runs.filter((run) => run.earlyStop).length} | ` +
    `${runs.reduce((sum, run) => sum + run.repliesToOlderRequests, 0)} | ${answered.filter((request) => request.answered).length}/${answered.length} | ` +
    `${runs.filter((run) => run.failure !== undefined).length} | ${Math.round(median(runs.map((run) => run.wallMs)) / 1000)} s |`
}

const header = "| arm | success (95% interval) | tokens (median) | tokens sent | cost (median) | model calls | turnovers | early stops | replies to older requests | requests answered | provider/harness failures | wall time |\n" +
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"

const priced = (results: ReadonlyArray<RunResult>, arms: ReadonlyArray<string>, reference: PriceReference): ReadonlyArray<string> => [
  `## What one task costs at ${reference.name}'s prices`,
  "",
  `The measured tokens of these runs priced at ${reference.name} (Pi's model catalog: $${reference.cost.input} per million input tokens, ` +
    `$${reference.cost.cacheRead} per million cache reads, $${reference.cost.output} per million output tokens). Medians per task over the runs of each arm. ` +
    "A provider that also bills cache writes (Anthropic: 1.25 × input for the new part of each prompt) costs more than this for the uncached share.",
  "",
  "| arm | input (uncached) | cache reads | output | cost per task |",
  "| --- | --- | --- | --- | --- |",
  ...arms.map((arm) => {
    const runs = results.filter((run) => run.arm === arm)
    return `| ${arm} | ${integer(median(runs.map((run) => run.tokens.input)))} | ${integer(median(runs.map((run) => run.tokens.cacheRead)))} | ` +
      `${integer(median(runs.map((run) => run.tokens.output)))} | ${usd(median(runs.map((run) => priceOf(run.tokens, reference))))} |`
  }),
  ""
]

export const renderReport = (all: ReadonlyArray<RunResult>, reference?: PriceReference): string => {
  const results = countedRuns(all)
  const apart = all.filter((run) => isInfrastructureFailure(run.failure))
  const arms = armsOf(results)
  const tasks = [...new Set(results.map((result) => result.task))]
  const scripted = results.some((result) => result.scripted)
  // The window under test: the upper bound's own is no figure of the run.
  const first = results.find((run) => run.arm !== "fresh") ?? results[0]
  const lines: Array<string> = ["# pi-context eval report", ""]
  if (first !== undefined) {
    lines.push(
      `Model: ${first.versions.model} · window ${integer(first.window)} tokens · pi-context ${first.versions.piContext} · Pi ${first.versions.pi} · ` +
        `${results.length} runs (${tasks.length} tasks × ${arms.length} arms × ${median(tasks.map((task) => results.filter((run) => run.task === task && run.arm === arms[0]).length))} seeds)`,
      "",
      `Pi's settings for every arm: compaction reserves ${integer(compactionAt(first.window).reserveTokens)} tokens and keeps ${integer(compactionAt(first.window).keepRecentTokens)} ` +
        `(off for \`none\`, \`masking\` and \`fresh\`); pi-context's lines follow from that reserve. The masking arm masks tool results older than its last ${MaskAfterTurns} turns, ` +
        "and past the recent budget compaction keeps (the setting of JetBrains' study, capped for a 32k window: ten log pages alone would overflow it). " +
        "Each task's mid-task message is steered in after a fixed number of calls of Pi's own tools, the same point of the work in every arm.",
      ""
    )
  }
  if (scripted) {
    lines.push(
      "> **Scripted model.** These runs used the built-in scripted agent, not a language model. Its calls, tokens and turnovers are real " +
        "mechanical figures of Pi and the arm under test; its success rate says nothing about how a real model does. Run `npm run eval -- --model provider/id` for that.",
      ""
    )
  }
  lines.push(
    "Success: the task's verifier passed, every request that needs an answer was answered, and no provider failure ended the run; " +
      "the interval is Wilson's 95% score interval over the seeds. Tokens: input + output + cache reads + cache writes as the provider reported them; " +
      "tokens sent: the prompt tokens alone. Medians over the seeds. A turnover is a reset (pi-context) or a compaction (Pi). " +
      "An early stop: the run ended with the verifier failing and no statement that the model is blocked. " +
      "A reply to an older request: an answer to a question repeated after a turnover that followed its first answer.",
    ""
  )
  lines.push(
    "## What to decide on",
    "",
    ...decisionRows(results),
    "",
    "Tokens per solved task: every token of the arm's runs (failed runs included) over the runs that succeeded. Probe recall: at each turnover the new " +
      "window's first request was sent again with a question appended (what is the task, its facts, what is done, what is next), outside the run; the share " +
      "of the task's declared facts the answer held, averaged over the probes (their number in brackets). A stuck run made the same failing call " +
      `three times or more. Telling a success rate of 80% from 90% at 95% confidence (80% power) takes about ${runsToTell(0.8, 0.9)} runs per arm ` +
      `(${Math.ceil(runsToTell(0.8, 0.9) / Math.max(1, tasks.length))} seeds of each of ${tasks.length} tasks); these ${results.length} runs cannot, so read their success only as a regression check.`,
    "",
    ...(arms.includes("fresh")
      ? ["The `fresh` arm is the upper bound, not a contender: no compaction and no pi-context, in the model's own window (1,000,000 tokens for the scripted one), so nothing ever turns over.", ""]
      : []),
    ...(apart.length === 0 ? [] : [
      `**${apart.length} runs were ended by the provider or the harness** (a rate limit or server error after Pi's retries, a model that stopped answering, ` +
        "a run that could not start): they are left out of every figure here, and `npm run eval -- --resume <this folder>` runs them again.",
      "",
      ...apart.map((run) => `- ${run.arm}, ${run.task}, seed ${run.seed}: ${run.failure!.kind}: ${run.failure!.message.slice(0, 200)}`),
      ""
    ]),
    ...(pairedRows(results).length === 0 ? [] : [
      "## Paired against compaction",
      "",
      ...pairedRows(results),
      "",
      "A pair: the arm and compaction on the same task and seed (the same repository and messages). The success difference is the arm's rate minus " +
        "compaction's over the pairs, in points, with Agresti and Min's 95% interval for paired proportions; the token figure is the geometric mean of the arm's tokens " +
        `over compaction's on the pairs both solved. ${pairsNeededText()}`,
      ""
    ]),
    ...familySection(results, totalTokens),
    "## Runs whose window turned over",
    "",
    ...turnedOverRows(results),
    "",
    "A task can end before its window fills; these rows count only the runs that did turn over, once and three times or more.",
    "",
    "## Overall",
    "",
    header,
    ...arms.map((arm) => row(arm, results.filter((run) => run.arm === arm))),
    ""
  )
  if (scripted && reference !== undefined) lines.push(...priced(results, arms, reference))
  for (const task of tasks) {
    lines.push(`## ${task}`, "", header, ...arms.map((arm) => row(arm, results.filter((run) => run.task === task && run.arm === arm))), "")
    const failed = results.filter((run) => run.task === task && !run.success)
    for (const run of failed) {
      const why = run.failure !== undefined ? `${run.failure.kind}: ${run.failure.message}` : run.verifierFailures.join("; ") || "a required answer is missing"
      lines.push(`- ${run.arm}, seed ${run.seed}: ${why.slice(0, 300)}`)
    }
    if (failed.length > 0) lines.push("")
  }
  lines.push("![tokens sent per model call](chart.svg)", "")
  return lines.join("\n")
}
