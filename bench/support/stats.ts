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
