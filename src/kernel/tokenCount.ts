/**
 * A token count as people read it: rounded, never negative, its thousands
 * grouped with commas (`12,288`), as `toLocaleString("en-US")` writes it.
 * Grouped by hand: the first `toLocaleString` of a process loads ICU's number
 * formatter, about 10 ms that the first reminder, status or windows view
 * would pay. Free of imports, so Pi's TUI can load it with the entry renderers.
 */
export const formatTokens = (tokens: number): string => {
  const whole = Math.max(0, Math.round(tokens))
  if (!Number.isFinite(whole)) return Number.isNaN(whole) ? "NaN" : "∞"
  const digits = String(whole)
  if (digits.length <= 3 || digits.includes("e")) return digits
  let grouped = digits.slice(0, digits.length % 3 || 3)
  for (let at = grouped.length; at < digits.length; at += 3) grouped += `,${digits.slice(at, at + 3)}`
  return grouped
}

/** The estimate the budget is measured in: four characters per token. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)
