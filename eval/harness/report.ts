/** report.md from the runs: per task and arm, then overall. */
import { defaultMask } from "./settings.ts"
import { bestSetting, matchedRows, matchedVerdict, sensitivityRows, settingFigures, type SweepSetting, sweepRows } from "./sweep.ts"
import { priceOf } from "./metrics.ts"
import { compactionAt } from "./settings.ts"
import { ProbeEvery } from "./probe.ts"
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
  const known = ["pi-context", "compaction", "masking", "hybrid"]
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

/**
 * A run's cost in money: a real model's as Pi priced it; a scripted run's tokens at the reference model's rates (its
 * cache reads, cache writes, output and uncached input each at their own price).
 */
export const costOf = (run: RunResult, reference: PriceReference | undefined): number =>
  run.scripted && reference !== undefined ? priceOf(run.tokens, reference) : run.costUsd

/** The money of the arm's runs over the tasks they solved, failures included. */
export const moneyPerSolved = (runs: ReadonlyArray<RunResult>, reference: PriceReference | undefined): number | undefined => {
  const solved = runs.filter((run) => run.success).length
  return solved === 0 ? undefined : runs.reduce((sum, run) => sum + costOf(run, reference), 0) / solved
}

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

/** The runs that failed, apart: a window that overflowed the model's, and a task that failed otherwise (forgotten, unfinished, wrong). */
const failedApart = (runs: ReadonlyArray<RunResult>): string => {
  const failed = runs.filter((run) => !run.success)
  const overflowed = failed.filter((run) => run.failure?.kind === "context-overflow").length
  return `${overflowed} | ${failed.length - overflowed}`
}

/** What a solved task costs, one row per arm: money first (cache reads, cache writes and output at their own rates), then tokens. */
export const decisionRows = (all: ReadonlyArray<RunResult>, reference?: PriceReference): ReadonlyArray<string> => {
  const results = countedRuns(all)
  const arms = armsOf(results)
  const of = (arm: string) => results.filter((run) => run.arm === arm)
  const baseline = { tokens: tokensPerSolved(of("compaction")), money: moneyPerSolved(of("compaction"), reference) }
  const against = (value: number | undefined, base: number | undefined) => (value === undefined || base === undefined || !(base > 0) ? "–" : (value / base).toFixed(2))
  return [
    "| arm | money per solved task | against compaction | tokens per solved task | against compaction | cache reads of the prompt | solved | failed: overflow | failed: otherwise | stuck runs | turnovers (median) | model calls (median) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...arms.map((arm) => {
      const runs = of(arm)
      const perSolved = tokensPerSolved(runs)
      const money = moneyPerSolved(runs, reference)
      const prompt = runs.reduce((sum, run) => sum + run.tokens.input + run.tokens.cacheRead + run.tokens.cacheWrite, 0)
      const cacheRead = prompt === 0 ? "–" : percent(runs.reduce((sum, run) => sum + run.tokens.cacheRead, 0) / prompt)
      return `| ${arm} | ${money === undefined ? "none solved" : `$${money.toFixed(2)}`} | ${against(money, baseline.money)} | ` +
        `${perSolved === undefined ? "none solved" : integer(perSolved)} | ${against(perSolved, baseline.tokens)} | ${cacheRead} | ` +
        `${runs.filter((run) => run.success).length}/${runs.length} | ${failedApart(runs)} | ${runs.filter((run) => run.stuck).length} | ${median(runs.map((run) => run.turnovers.total))} | ${integer(median(runs.map((run) => run.modelCalls)))} |`
    })
  ]
}

/** The probes, per arm: facts answered right, wrong values given, the files changed named, the next file right. */
export const probeRows = (results: ReadonlyArray<RunResult>): ReadonlyArray<string> => {
  const mean = (values: ReadonlyArray<number>) => (values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length)
  const share = (value: number | undefined) => (value === undefined ? "–" : percent(value))
  return [
    "| arm | probes | after a turnover | facts right | facts with a wrong value | files changed, named | next file right |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...armsOf(results).map((arm) => {
      const probes = results.filter((run) => run.arm === arm).flatMap((run) => run.probes ?? [])
      const asked = probes.reduce((sum, probe) => sum + (probe.facts ?? 0), 0)
      const nexts = probes.flatMap((probe) => (probe.next === undefined ? [] : [probe.next ? 1 : 0]))
      return `| ${arm} | ${probes.length} | ${probes.filter((probe) => (probe.turnovers ?? 0) > 0).length} | ` +
        `${share(asked === 0 ? undefined : probes.reduce((sum, probe) => sum + probe.recall * (probe.facts ?? 0), 0) / asked)} | ` +
        `${asked === 0 ? "–" : `${probes.reduce((sum, probe) => sum + (probe.wrong ?? 0), 0)} of ${asked}`} | ${share(mean(probes.map((probe) => probe.done ?? 0)))} | ${share(mean(nexts))} |`
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

const row = (name: string, runs: ReadonlyArray<RunResult>, reference: PriceReference | undefined): string => {
  const answered = runs.flatMap((run) => run.requests)
  return `| ${name} | ${successText(runs)} | ` +
    `${integer(median(runs.map(totalTokens)))} | ${integer(median(runs.map((run) => run.tokens.input + run.tokens.cacheRead + run.tokens.cacheWrite)))} | ` +
    `${usd(median(runs.map((run) => costOf(run, reference))))} | ${integer(median(runs.map((run) => run.modelCalls)))} | ` +
    `${median(runs.map((run) => run.turnovers.total))} | ${runs.filter((run) => run.earlyStop).length} | ` +
    `${runs.reduce((sum, run) => sum + run.repliesToOlderRequests, 0)} | ${answered.filter((request) => request.answered).length}/${answered.length} | ` +
    `${runs.filter((run) => run.failure !== undefined).length} | ${Math.round(median(runs.map((run) => run.wallMs)) / 1000)} s |`
}

const header = "| arm | success (95% interval) | tokens (median) | tokens sent | cost (median) | model calls | turnovers | early stops | replies to older requests | requests answered | provider/harness failures | wall time |\n" +
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"

const priced = (results: ReadonlyArray<RunResult>, arms: ReadonlyArray<string>, reference: PriceReference): ReadonlyArray<string> => [
  `## What one task costs at ${reference.name}'s prices`,
  "",
  `The measured tokens of these runs priced at ${reference.name} (Pi's model catalog: $${reference.cost.input} per million uncached input tokens, ` +
    `$${reference.cost.cacheRead} per million cache reads, $${reference.cost.cacheWrite} per million cache writes, $${reference.cost.output} per million output tokens). ` +
    "Medians per task over the runs of each arm.",
  "",
  "| arm | input (uncached) | cache reads | cache writes | output | cost per task |",
  "| --- | --- | --- | --- | --- | --- |",
  ...arms.map((arm) => {
    const runs = results.filter((run) => run.arm === arm)
    return `| ${arm} | ${integer(median(runs.map((run) => run.tokens.input)))} | ${integer(median(runs.map((run) => run.tokens.cacheRead)))} | ` +
      `${integer(median(runs.map((run) => run.tokens.cacheWrite)))} | ${integer(median(runs.map((run) => run.tokens.output)))} | ${usd(median(runs.map((run) => priceOf(run.tokens, reference))))} |`
  }),
  ""
]

/** Which masking setting the sweep chose, and why, in a sentence; empty without a sweep of it. */
export const maskChoiceText = (figures: ReturnType<typeof settingFigures>): string => {
  const chosen = ["masking", "hybrid"].flatMap((arm) => {
    const best = bestSetting(figures, arm)
    const tried = figures.filter((figure) => figure.arm === arm && figure.standIn === "default").length
    return best === undefined || tried < 2 ? [] : [`${arm}: ${best.setting}, of ${tried} settings tried (${best.solved}/${best.runs.length} solved, $${(best.moneyPerSolved ?? 0).toFixed(2)} per solved task)`]
  })
  return chosen.length === 0 ? "" : `The sweep's best mask settings (the most runs solved, then the least money per solved task): ${chosen.join("; ")}. ` +
    `The default is last ${defaultMask.keepTurns} turns, in steps of ${defaultMask.step}.`
}

export const renderReport = (all: ReadonlyArray<RunResult>, reference?: PriceReference, sweep: ReadonlyArray<SweepSetting> = []): string => {
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
        `(off for \`none\`, \`masking\` and \`fresh\`); pi-context's lines follow from that reserve. The masking arms mask tool results older than their last ${defaultMask.keepTurns} turns ` +
        `and past the recent budget compaction keeps, the boundary moving ${defaultMask.step} turns at a time so that the prompt's prefix stays cached between steps; ` +
        "`masking` has no fallback (a window that still fills overflows), `hybrid` falls back on Pi's compaction. " +
        "Each task's mid-task message is steered in after a fixed number of calls of Pi's own tools, the same point of the work in every arm.",
      ""
    )
  }
  if (scripted) {
    lines.push(
      "> **Scripted model.** These runs used the built-in scripted agent, not a language model: the mechanical regression suite. Its calls, tokens, " +
        "turnovers, prompt curves, loops and cost are real figures of Pi and the arm under test. Its success and its probe answers measure the stand-in's " +
        "habits as much as the arm (the stand-in variants below show how far), so they are no headline figures; say nothing of how a real model does. " +
        "Run `npm run eval -- --model provider/id` for that. Money: the tokens at the priced model's rates, every prompt token the provider's cache does not " +
        "hold written to it (a cache breakpoint at the end of each prompt, the way Pi marks Anthropic's requests).",
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
  const figures = settingFigures(sweep, reference)
  const matched = matchedRows(figures, reference)
  const sensitivity = sensitivityRows(figures, reference)
  const masks = maskChoiceText(figures)
  lines.push(
    ...(matched.length === 0 ? [] : [
      "## Defaults against defaults, and each arm at its best setting",
      "",
      ...matched,
      "",
      `${matchedVerdict(figures, reference)} Each arm's settings were swept (compaction's reserve and kept tokens, pi-context's lines, the mask's kept turns): ` +
        "its best setting solves the most runs, then costs the least money per solved task. Money per solved task: every run's cost (failed runs included) " +
        "over the runs that succeeded.",
      ""
    ]),
    "## What a solved task costs",
    "",
    ...decisionRows(results, reference),
    "",
    "Money and tokens per solved task: every run's (failed runs included) over the runs that succeeded; money at the priced model's rates for uncached input, " +
      "cache reads, cache writes and output. Cache reads of the prompt: the share of prompt tokens the provider read from its cache. A stuck run made the same " +
      "failing call three times or more. A run that failed by " +
      "overflowing the model's window is counted apart from one that failed otherwise (a forgotten fact, an unanswered request, a step left undone). " +
      `Telling a success rate of 80% from 90% at 95% confidence (80% power) takes about ${runsToTell(0.8, 0.9)} runs per arm ` +
      `(${Math.ceil(runsToTell(0.8, 0.9) / Math.max(1, tasks.length))} seeds of each of ${tasks.length} tasks); these ${results.length} runs cannot, so read their success only as a regression check.`,
    "",
    ...(figures.filter((figure) => figure.standIn === "default").length <= armsOf(results).length ? [] : [
      "## Cost against success over the sweep",
      "",
      ...sweepRows(figures),
      "",
      ...(masks === "" ? [] : [masks, ""])
    ]),
    ...(sensitivity.length === 0 ? [] : [
      "## How each arm moves with the stand-in",
      "",
      ...sensitivity,
      "",
      "The same tasks and seeds, every arm at its defaults, the scripted agent changed in one way at a time: `write` rewrites whole files instead of editing " +
        "them; `silent` never restates in its replies what a result taught it; `loss=P` loses one fact, with chance P, from each checkpoint note and each " +
        "summary it writes. Each cell: runs solved (the change from the default stand-in) · money per solved task · probe facts right.",
      ""
    ]),
    "## Memory probes",
    "",
    ...probeRows(results),
    "",
    `Every ${ProbeEvery} calls of Pi's own tools (the same points of progress in every arm), the arm's next request was sent again, outside the run, ` +
      "with numbered questions: one per fact of the task the run had been given so far, the files changed so far, and the file to change next. Each answer " +
      "line is graded alone: a fact is right with its value and none of its wrong ones (distractors, values the user has since changed); the files named " +
      "against the files the run had really changed (one named that was not takes one off); the next file against what the reference solution still had to change.",
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
    ...arms.map((arm) => row(arm, results.filter((run) => run.arm === arm), reference)),
    ""
  )
  if (scripted && reference !== undefined) lines.push(...priced(results, arms, reference))
  for (const task of tasks) {
    lines.push(`## ${task}`, "", header, ...arms.map((arm) => row(arm, results.filter((run) => run.task === task && run.arm === arm), reference)), "")
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
