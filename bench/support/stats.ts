/**
 * The median every benchmark reports: of an even count, the mean of the two
 * middle samples. A module, not a benchmark: it does nothing when run.
 */
export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * Runs `round` `warmup + runs` times, each round measuring two things in turn
 * (so drift lands on both), and keeps the figures of the rounds after the
 * warm-up: the first figures of each round, and the second.
 */
export const pairedRounds = async (
  warmup: number,
  runs: number,
  round: () => Promise<readonly [number, number]>
): Promise<readonly [Array<number>, Array<number>]> => {
  const firsts: Array<number> = []
  const seconds: Array<number> = []
  for (let i = 0; i < warmup + runs; i++) {
    const [first, second] = await round()
    if (i < warmup) continue
    firsts.push(first)
    seconds.push(second)
  }
  return [firsts, seconds]
}
