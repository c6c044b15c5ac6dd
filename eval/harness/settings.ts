/**
 * The arms' turnover settings, the same for every arm unless a run names its
 * own: Pi's compaction numbers at a window, and the masking baseline's.
 */

export interface CompactionSetting {
  readonly reserveTokens: number
  readonly keepRecentTokens: number
}

/**
 * Pi's compaction numbers at a window: Pi's defaults (16,384 reserved, 20,000
 * kept) assume a window of 128k or more, so both are scaled to the window and
 * capped at those defaults.
 */
export const compactionAt = (window: number): CompactionSetting => ({
  reserveTokens: Math.min(16_384, Math.round(window / 8)),
  keepRecentTokens: Math.min(20_000, Math.round(window / 4))
})

/** The compaction numbers a run uses: its own (`--compaction`), else the window's. */
export const compactionOf = (spec: { readonly window: number; readonly compaction?: CompactionSetting | undefined }): CompactionSetting =>
  spec.compaction ?? compactionAt(spec.window)

export interface MaskSetting {
  /** Tool results of the last `keepTurns` model turns (at least) are shown whole; older ones are masked. */
  readonly keepTurns: number
  /**
   * The mask boundary moves in steps of this many turns: between two steps the
   * masked results stay the same, so every request extends the one before and
   * a provider's prefix cache reads all of it.
   */
  readonly step: number
}

/**
 * The masking arms' defaults, chosen by the sweep (eval/results/sweep/): of the
 * last 5, 10 and 20 turns kept, each in steps of 5, the last 5 solved as many
 * runs as the others (masking 18/21, every failure an overflow; hybrid 21/21)
 * for the least money per solved task. Steps of 1 (a boundary that moves every
 * turn) cost twice as much: the prompt's prefix is rewritten at every call.
 */
export const defaultMask: MaskSetting = { keepTurns: 5, step: 5 }
