/**
 * Paired figures: an arm against compaction on the same task and seed (the
 * same generated repository and messages), so that what the seeds share
 * cancels out. Pure functions of the results; the report and the README
 * both write them.
 */
import { isInfrastructureFailure, type RunResult } from "./types.ts"

const Z95 = 1.959964
const Z80Power = 0.841621

/** The runs a figure counts: one ended by the provider or the harness says nothing of its task, and is reported apart. */
export const countedRuns = (results: ReadonlyArray<RunResult>): ReadonlyArray<RunResult> => results.filter((result) => !isInfrastructureFailure(result.failure))

export interface Pair {
  readonly task: string
  readonly seed: number
  readonly arm: RunResult
  readonly baseline: RunResult
}

export const pairsOf = (results: ReadonlyArray<RunResult>, arm: string, baseline: string): ReadonlyArray<Pair> =>
  results.flatMap((run) => {
    if (run.arm !== arm) return []
    const other = results.find((candidate) => candidate.arm === baseline && candidate.task === run.task && candidate.seed === run.seed)
    return other === undefined ? [] : [{ task: run.task, seed: run.seed, arm: run, baseline: other }]
  })

export interface PairedSuccess {
  readonly pairs: number
  readonly bothSolved: number
  /** Pairs only the arm solved, and only the baseline. */
  readonly onlyArm: number
  readonly onlyBaseline: number
  /** The arm's success rate minus the baseline's over the pairs, with its 95% interval (Agresti–Min, for paired proportions). */
  readonly difference: number
  readonly low: number
  readonly high: number
}

export const pairedSuccess = (pairs: ReadonlyArray<Pair>): PairedSuccess => {
  const n = pairs.length
  const onlyArm = pairs.filter((pair) => pair.arm.success && !pair.baseline.success).length
  const onlyBaseline = pairs.filter((pair) => !pair.arm.success && pair.baseline.success).length
  const bothSolved = pairs.filter((pair) => pair.arm.success && pair.baseline.success).length
  if (n === 0) return { pairs: 0, bothSolved, onlyArm, onlyBaseline, difference: 0, low: -1, high: 1 }
  const difference = (onlyArm - onlyBaseline) / n
  // Agresti and Min's interval: half a pair added to each cell, so that pairs that all agree still give an interval
  // as wide as their number allows, not the single point a plain Wald interval gives.
  const [b, c, m] = [onlyArm + 0.5, onlyBaseline + 0.5, n + 2]
  const centre = (b - c) / m
  const se = Math.sqrt(Math.max(0, b + c - (b - c) ** 2 / m)) / m
  return { pairs: n, bothSolved, onlyArm, onlyBaseline, difference, low: Math.max(-1, centre - Z95 * se), high: Math.min(1, centre + Z95 * se) }
}

export interface PairedRatio {
  readonly pairs: number
  /** The geometric mean of the arm's tokens over the baseline's, on pairs both solved, with its 95% interval. */
  readonly ratio: number
  readonly low: number
  readonly high: number
}

export const pairedTokenRatio = (pairs: ReadonlyArray<Pair>, tokens: (run: RunResult) => number): PairedRatio | undefined => {
  const logs = pairs.filter((pair) => pair.arm.success && pair.baseline.success && tokens(pair.arm) > 0 && tokens(pair.baseline) > 0)
    .map((pair) => Math.log(tokens(pair.arm) / tokens(pair.baseline)))
  if (logs.length === 0) return undefined
  const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length
  const sd = logs.length < 2 ? 0 : Math.sqrt(logs.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (logs.length - 1))
  const half = Z95 * sd / Math.sqrt(logs.length)
  return { pairs: logs.length, ratio: Math.exp(mean), low: Math.exp(mean - half), high: Math.exp(mean + half) }
}

/**
 * Pairs needed to see a difference `difference` in success rate when a share `discordant` of the pairs has one
 * arm solving and the other not (McNemar's test, two-sided 95%, 80% power; Connor's approximation).
 */
export const pairsToTell = (difference: number, discordant: number): number =>
  Math.ceil((Z95 * Math.sqrt(discordant) + Z80Power * Math.sqrt(Math.max(0, discordant - difference ** 2))) ** 2 / difference ** 2)
