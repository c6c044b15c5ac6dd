/**
 * Pi's compaction numbers at a window, the same for every arm: Pi's defaults
 * (16,384 reserved, 20,000 kept) assume a window of 128k or more, so both are
 * scaled to the window and capped at those defaults.
 */
export const compactionAt = (window: number): { readonly reserveTokens: number; readonly keepRecentTokens: number } => ({
  reserveTokens: Math.min(16_384, Math.round(window / 8)),
  keepRecentTokens: Math.min(20_000, Math.round(window / 4))
})
