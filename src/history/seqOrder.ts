/** First index whose seq is > `seq` (seqs ascending). */
export const indexAfter = (seqs: ReadonlyArray<number>, seq: number): number => {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (seqs[middle]! <= seq) low = middle + 1
    else high = middle
  }
  return low
}

/** First index whose seq is >= `seq`. */
export const indexFrom = (seqs: ReadonlyArray<number>, seq: number): number => indexAfter(seqs, seq - 1)
