import { Result } from "effect"

export interface TextEdit {
  readonly oldText: string
  readonly newText: string
}

/** Distinct lines named in a refusal of an ambiguous edit; past them the refusal says there are more. */
export const ambiguousLinesShown = 20

/** Why a batch of edits was refused; `editIndex` counts from 1, as the model numbers them. */
export type EditRefusal =
  | { readonly _tag: "EmptyOldText"; readonly editIndex: number }
  | { readonly _tag: "NoMatch"; readonly editIndex: number }
  | {
    readonly _tag: "Ambiguous"
    readonly editIndex: number
    readonly count: number
    /** The first distinct lines holding an occurrence, in order. */
    readonly lines: ReadonlyArray<number>
    readonly moreLines: boolean
  }
  | { readonly _tag: "Overlap"; readonly editIndex: number; readonly otherIndex: number; readonly line: number }

/** 1-based line numbers of the ascending UTF-16 indices `indices`, in one pass over the text, stopping after `distinct` lines. */
const linesAt = (text: string, indices: ReadonlyArray<number>, distinct = Number.MAX_SAFE_INTEGER): ReadonlyArray<number> => {
  const lines: Array<number> = []
  let line = 1
  let newline = text.indexOf("\n")
  for (const index of indices) {
    while (newline !== -1 && newline < index) {
      line++
      newline = text.indexOf("\n", newline + 1)
    }
    if (lines[lines.length - 1] === line) continue
    if (lines.length === distinct) break
    lines.push(line)
  }
  return lines
}

/** Every start of `needle` in `text`, overlapping ones included: Knuth-Morris-Pratt, linear in both lengths. */
const occurrences = (text: string, needle: string): ReadonlyArray<number> => {
  const border = new Int32Array(needle.length)
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++
    border[i] = k
  }
  const found: Array<number> = []
  for (let i = 0, k = 0; i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!
    if (text.charCodeAt(i) === needle.charCodeAt(k)) k++
    if (k === needle.length) {
      found.push(i - needle.length + 1)
      k = border[k - 1]!
    }
  }
  return found
}

/**
 * Applies exact-text edits to `text`, all or nothing. Every `oldText` is
 * looked up in the original text and must occur there exactly once, so line
 * numbers in a refusal match the note the model read. Each edit costs a
 * pass over the text: two `indexOf` for a unique match, one counting pass
 * (KMP) for an ambiguous one; the tool bounds the number of edits.
 */
export const applyEdits = (text: string, edits: ReadonlyArray<TextEdit>): Result.Result<string, EditRefusal> => {
  const located: Array<{ readonly editIndex: number; readonly start: number; readonly end: number; readonly newText: string }> = []
  for (let i = 0; i < edits.length; i++) {
    const edit = edits[i]!
    const editIndex = i + 1
    if (edit.oldText.length === 0) return Result.fail({ _tag: "EmptyOldText", editIndex })
    const start = text.indexOf(edit.oldText)
    if (start === -1) return Result.fail({ _tag: "NoMatch", editIndex })
    if (text.indexOf(edit.oldText, start + 1) !== -1) {
      const found = occurrences(text, edit.oldText)
      const lines = linesAt(text, found, ambiguousLinesShown + 1)
      return Result.fail({
        _tag: "Ambiguous",
        editIndex,
        count: found.length,
        lines: lines.slice(0, ambiguousLinesShown),
        moreLines: lines.length > ambiguousLinesShown
      })
    }
    located.push({ editIndex, start, end: start + edit.oldText.length, newText: edit.newText })
  }
  const ordered = [...located].sort((a, b) => a.start - b.start)
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!
    const current = ordered[i]!
    if (current.start < previous.end) {
      const [first, second] = previous.editIndex < current.editIndex ? [previous, current] : [current, previous]
      return Result.fail({ _tag: "Overlap", editIndex: second.editIndex, otherIndex: first.editIndex, line: linesAt(text, [current.start])[0]! })
    }
  }
  const parts: Array<string> = []
  let cursor = 0
  for (const edit of ordered) {
    parts.push(text.slice(cursor, edit.start), edit.newText)
    cursor = edit.end
  }
  parts.push(text.slice(cursor))
  return Result.succeed(parts.join(""))
}

/** A sentence the model can act on. */
export const describeEditRefusal = (refusal: EditRefusal, editCount: number): string => {
  const which = editCount > 1 ? `edit ${refusal.editIndex} of ${editCount}` : "the edit"
  switch (refusal._tag) {
    case "EmptyOldText":
      return `${which} has an empty oldText; quote the exact text to replace. Nothing was changed.`
    case "NoMatch":
      return `${which}: oldText was not found in the note; read it with notes_read and copy the text exactly (whitespace and line endings included). Nothing was changed.`
    case "Ambiguous":
      return `${which}: oldText occurs ${refusal.count} times (${refusal.lines.length === 1 ? "line" : "lines"} ${refusal.lines.join(", ")}${
        refusal.moreLines ? ", and later lines" : ""
      }); include more surrounding text so it occurs exactly once. Nothing was changed.`
    case "Overlap":
      return `edit ${refusal.editIndex} overlaps edit ${refusal.otherIndex} near line ${refusal.line}; merge them into one edit. Nothing was changed.`
  }
}
