/**
 * The words for a notes sync conflict copy, shared by the sync view, doctor
 * and the notes overview (which Pi's TUI draws, so this stays free of Effect).
 */

export const conflictFix = "merge the copy into the note, then delete or retire the copy"

/** The heading of the conflict copies the notes view lists. */
export const conflictsHeading = (count: number): string =>
  `${count} sync ${count === 1 ? "conflict" : "conflicts"} pending: ${conflictFix}`
