/**
 * Statistics by family. A task is a family (a generator), its seeds are
 * instances of it: runs of one family share its shape, so they are not
 * independent, and a figure that treats each seed as a new sample claims more
 * certainty than the runs hold. Here the family is the unit: the token ratio
 * is bootstrapped over families, the success difference is tested with the
 * families as clusters (a sign-flip test on each family's own difference),
 * and the runs a question needs are counted in families. Pure functions of
 * the results; the report writes them.
 */
import { rng } from "../tasks/common.ts"
import { countedRuns, pairsOf, type Pair } from "./paired.ts"
import type { RunResult } from "./types.ts"

const Z95 = 1.959964
const Z80Power = 0.841621

/** The pairs (the same task and seed in both arms) grouped by family, families in name order. */
export const pairsByFamily = (results: ReadonlyArray<RunResult>, arm: string, baseline: string): ReadonlyMap<string, ReadonlyArray<Pair>> => {
  const byFamily = new Map<string, Array<Pair>>()
  for (const pair of pairsOf(countedRuns(results), arm, baseline)) byFamily.set(pair.task, [...(byFamily.get(pair.task) ?? []), pair])
  return new Map([...byFamily].sort(([a], [b]) => a.localeCompare(b)))
}

export interface FamilyRatio {
  readonly families: number
  /** The arm's tokens per solved run over the baseline's, over every family. */
  readonly ratio: number
  /** The 2.5th and 97.5th percentiles of the ratio over families drawn with replacement. */
  readonly low: number
  readonly high: number
  /** Draws in which one arm solved nothing (no ratio), left out of the interval. */
  readonly emptyDraws: number
}

const ratioOver = (families: ReadonlyArray<ReadonlyArray<Pair>>, tokens: (run: RunResult) => number): number | undefined => {
  const sum = { arm: 0, armSolved: 0, baseline: 0, baselineSolved: 0 }
  for (const pairs of families) {
    for (const pair of pairs) {
      sum.arm += tokens(pair.arm)
      sum.baseline += tokens(pair.baseline)
      if (pair.arm.success) sum.armSolved++
      if (pair.baseline.success) sum.baselineSolved++
    }
  }
  if (sum.armSolved === 0 || sum.baselineSolved === 0 || sum.baseline === 0) return undefined
  return (sum.arm / sum.armSolved) / (sum.baseline / sum.baselineSolved)
}

const percentile = (sorted: ReadonlyArray<number>, share: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(share * (sorted.length - 1))))]!

/**
 * Tokens per solved run, the arm's over the baseline's, with a percentile bootstrap that draws whole families
 * (every seed of a drawn family comes with it). `draws` and `seed` fix the draws: the same results give the same interval.
 */
export const familyTokenRatio = (
  byFamily: ReadonlyMap<string, ReadonlyArray<Pair>>,
  tokens: (run: RunResult) => number,
  options: { readonly draws?: number; readonly seed?: number } = {}
): FamilyRatio | undefined => {
  const families = [...byFamily.values()]
  const ratio = ratioOver(families, tokens)
  if (ratio === undefined) return undefined
  const random = rng(options.seed ?? 1)
  const ratios: Array<number> = []
  let emptyDraws = 0
  for (let draw = 0; draw < (options.draws ?? 2_000); draw++) {
    const drawn = families.map(() => families[Math.floor(random.next() * families.length)]!)
    const value = ratioOver(drawn, tokens)
    if (value === undefined) emptyDraws++
    else ratios.push(value)
  }
  ratios.sort((a, b) => a - b)
  return { families: families.length, ratio, low: percentile(ratios, 0.025), high: percentile(ratios, 0.975), emptyDraws }
}

export interface ClusteredSuccess {
  readonly families: number
  readonly pairs: number
  /** The mean over families of each family's success rate in the arm minus the baseline's. */
  readonly difference: number
  /** The spread of the families' differences (their sample standard deviation). */
  readonly familySd: number
  /** Two-sided: how often flipping the sign of whole families' differences gives a mean at least as far from 0. */
  readonly p: number
}

/** Each family's own difference in success rate, the arm's minus the baseline's, over its pairs. */
export const familyDifferences = (byFamily: ReadonlyMap<string, ReadonlyArray<Pair>>): ReadonlyArray<number> =>
  [...byFamily.values()].map((pairs) => pairs.reduce((sum, pair) => sum + Number(pair.arm.success) - Number(pair.baseline.success), 0) / pairs.length)

const mean = (values: ReadonlyArray<number>) => values.reduce((sum, value) => sum + value, 0) / values.length
const sampleSd = (values: ReadonlyArray<number>) => values.length < 2 ? 0 : Math.sqrt(values.reduce((sum, value) => sum + (value - mean(values)) ** 2, 0) / (values.length - 1))

/**
 * The success difference tested with families as clusters: under no difference each family's difference is as
 * likely negated, so the test flips whole families' signs (every pattern up to 16 families, 20,000 drawn above).
 */
export const clusteredSuccess = (byFamily: ReadonlyMap<string, ReadonlyArray<Pair>>, options: { readonly seed?: number } = {}): ClusteredSuccess | undefined => {
  const differences = familyDifferences(byFamily)
  if (differences.length === 0) return undefined
  const observed = Math.abs(mean(differences))
  const atLeast = (signs: (index: number) => number) => Math.abs(mean(differences.map((value, index) => value * signs(index)))) >= observed - 1e-12
  let extreme = 0
  let patterns = 0
  if (differences.length <= 16) {
    for (let mask = 0; mask < 2 ** differences.length; mask++, patterns++) if (atLeast((index) => ((mask >> index) & 1) === 1 ? -1 : 1)) extreme++
  } else {
    const random = rng(options.seed ?? 1)
    for (; patterns < 20_000; patterns++) if (atLeast(() => (random.next() < 0.5 ? -1 : 1))) extreme++
  }
  const pairs = [...byFamily.values()].reduce((sum, family) => sum + family.length, 0)
  return { families: differences.length, pairs, difference: mean(differences), familySd: sampleSd(differences), p: extreme / patterns }
}

export interface RunsNeeded {
  readonly families: number
  readonly seedsPerFamily: number
  /** Both arms' runs. */
  readonly runs: number
}

/**
 * Families needed to see a success difference `difference` (two-sided 95%, 80% power) when each family's own
 * difference spreads by `familySd`: n = ((z.975 + z.8) · sd / d)². A spread of 0 (every family agreeing, as the
 * scripted stand-in does) says nothing of a real model, so the spread is at least what binomial noise alone gives
 * with `seedsPerFamily` seeds at success rate `rate` in each arm.
 */
export const familiesToTell = (difference: number, familySd: number, rate: number, seedsPerFamily: number): RunsNeeded => {
  const noise = Math.sqrt((2 * Math.max(0.05, Math.min(0.95, rate)) * (1 - Math.max(0.05, Math.min(0.95, rate)))) / seedsPerFamily)
  const sd = Math.max(familySd, noise)
  const families = Math.max(2, Math.ceil(((Z95 + Z80Power) * sd / difference) ** 2))
  return { families, seedsPerFamily, runs: families * seedsPerFamily * 2 }
}

const seconds = (pairs: ReadonlyArray<Pair>): number => {
  const walls = pairs.flatMap((pair) => [pair.arm.wallMs, pair.baseline.wallMs]).sort((a, b) => a - b)
  return Math.max(1, Math.round((walls[Math.floor(walls.length / 2)] ?? 0) / 1000))
}
const hours = (totalSeconds: number): string => (totalSeconds / 3600 < 10 ? (totalSeconds / 3600).toFixed(1) : String(Math.round(totalSeconds / 3600)))

const points = (value: number) => `${value >= 0 ? "+" : ""}${Math.round(value * 100)}`
const two = (value: number) => value.toFixed(2)

/**
 * The report's section: for each model and arm against compaction, the token ratio bootstrapped over families,
 * the clustered success test, and the one question a run of this model answers with the runs it needs.
 */
export const familyRows = (results: ReadonlyArray<RunResult>, tokens: (run: RunResult) => number, baseline = "compaction"): ReadonlyArray<string> => {
  const rows: Array<string> = []
  const models = [...new Set(results.map((result) => result.model))].sort()
  for (const model of models) {
    const ofModel = results.filter((result) => result.model === model)
    const arms = [...new Set(ofModel.map((result) => result.arm))].filter((arm) => arm !== baseline).sort()
    const table: Array<string> = []
    let question: string | undefined
    for (const arm of arms) {
      const byFamily = pairsByFamily(ofModel, arm, baseline)
      const success = clusteredSuccess(byFamily)
      if (success === undefined) continue
      const ratio = familyTokenRatio(byFamily, tokens)
      const ratioText = ratio === undefined ? "–" : `${two(ratio.ratio)} (${two(ratio.low)}–${two(ratio.high)})`
      table.push(`| ${arm} | ${success.families} | ${success.pairs} | ${points(success.difference)} | ${two(success.familySd)} | ${success.p < 0.001 ? "<0.001" : success.p.toFixed(3)} | ${ratioText} |`)
      if (arm === "pi-context" || question === undefined) {
        const runs = [...byFamily.values()].flat()
        const rate = runs.reduce((sum, pair) => sum + Number(pair.baseline.success), 0) / runs.length
        const seeds = Math.max(1, Math.round(runs.length / success.families))
        const needed = familiesToTell(0.2, success.familySd, rate, seeds)
        question = `The one question a run of ${model} answers: does ${arm} solve 20 points more (or fewer) of the families' runs than ${baseline}? ` +
          `With ${seeds} seed${seeds === 1 ? "" : "s"} a family and the families' spread seen here, it takes ${needed.families} families, ${needed.runs} runs in the two arms` +
          (needed.families > success.families ? ` (this run has ${success.families} families: it cannot answer it yet)` : ` (this run has ${success.families})`) +
          `; at this run's median of ${seconds(runs)} s a run, about ${hours(needed.runs * seconds(runs))} h of runs.`
      }
    }
    if (table.length === 0) continue
    rows.push(
      `### ${model}`,
      "",
      `| arm against ${baseline} | families | pairs | success, points | spread of families | p (clustered) | tokens per solved, ratio (95%, over families) |`,
      "|---|---|---|---|---|---|---|",
      ...table,
      "",
      question!,
      ""
    )
  }
  return rows
}

/** The report's "By family" section, or nothing when no arm has a pair with compaction. */
export const familySection = (results: ReadonlyArray<RunResult>, tokens: (run: RunResult) => number): ReadonlyArray<string> => {
  const rows = familyRows(results, tokens)
  return rows.length === 0 ? [] : [
    "## By family",
    "",
    "A family is a task: its seeds are instances of one generator, not independent samples, so here the family is the unit. Success, points: the mean " +
      "over families of each family's success rate in the arm minus compaction's; p: a sign-flip test that negates whole families' differences (clustered by family). " +
      "The token ratio is tokens per solved run, the arm's over compaction's, with a percentile bootstrap drawing whole families (2,000 draws).",
    "",
    ...rows
  ]
}
