import { Schema } from "effect"

/**
 * What a reset's chat entry tells the user, written into the marker when the
 * boundary is built (the entry renderer sees only the entry): the kind of
 * reset, how full the ending window got, the new window's w-number, the notes
 * its boot indexes, and whether the model checkpointed first.
 */
export const ResetShown = Schema.Struct({
  /** w-number of the window that starts at this marker. */
  ordinal: Schema.Number,
  /** Highest usage a reply in the ending window reported (tokens), null when none did. */
  peakTokens: Schema.NullOr(Schema.Number),
  contextWindow: Schema.NullOr(Schema.Number),
  /** Notes in the homes the boot indexes (all notes, not only the rows it shows), counted as `notesCounted` does. */
  notesIndexed: Schema.Number,
  /** A notes_write or notes_update succeeded in the ending window. */
  checkpointed: Schema.Boolean,
  /** The ending window carried pi-context's guidance, and its final warning (absent in markers written before they were recorded). */
  guided: Schema.optional(Schema.Boolean),
  warned: Schema.optional(Schema.Boolean)
})
export type ResetShown = typeof ResetShown.Type
