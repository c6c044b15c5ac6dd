import { Result } from "effect"

export interface TextEdit {
  readonly oldText: string
  readonly newText: string
}

/** Why a batch of edits was refused; `editIndex` counts from 1, as the model numbers them. */
export type EditRefusal =
  | { readonly _tag: "EmptyOldText"; readonly editIndex: number }
  | { readonly _tag: "NoMatch"; readonly editIndex: number }
  | { readonly _tag: "Ambiguous"; readonly editIndex: number; readonly lines: ReadonlyArray<number> }
  | { readonly _tag: "Overlap"; readonly editIndex: number; readonly otherIndex: number; readonly line: number }

/** 1-based line number of the UTF-16 index `index`. */
const lineAt = (text: string, index: number): number => {
  let line = 1
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++
  return line
}

const occurrences = (text: string, needle: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at)
  return found
}

/**
 * Applies exact-text edits to `text`, all or nothing. Every `oldText` is
 * looked up in the original text and must occur there exactly once, so line
 * numbers in a refusal match the note the model read.
 */
export const applyEdits = (text: string, edits: ReadonlyArray<TextEdit>): Result.Result<string, EditRefusal> => {
  const located: Array<{ readonly editIndex: number; readonly start: number; readonly end: number; readonly newText: string }> = []
  for (let i = 0; i < edits.length; i++) {
    const edit = edits[i]!
    const editIndex = i + 1
    if (edit.oldText.length === 0) return Result.fail({ _tag: "EmptyOldText", editIndex })
    const found = occurrences(text, edit.oldText)
    if (found.length === 0) return Result.fail({ _tag: "NoMatch", editIndex })
    if (found.length > 1) return Result.fail({ _tag: "Ambiguous", editIndex, lines: found.map((at) => lineAt(text, at)) })
    located.push({ editIndex, start: found[0]!, end: found[0]! + edit.oldText.length, newText: edit.newText })
  }
  const ordered = [...located].sort((a, b) => a.start - b.start)
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!
    const current = ordered[i]!
    if (current.start < previous.end) {
      const [first, second] = previous.editIndex < current.editIndex ? [previous, current] : [current, previous]
      return Result.fail({ _tag: "Overlap", editIndex: second.editIndex, otherIndex: first.editIndex, line: lineAt(text, current.start) })
    }
  }
  let result = ""
  let cursor = 0
  for (const edit of ordered) {
    result += text.slice(cursor, edit.start) + edit.newText
    cursor = edit.end
  }
  return Result.succeed(result + text.slice(cursor))
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
      return `${which}: oldText occurs ${refusal.lines.length} times (lines ${refusal.lines.join(", ")}); include more surrounding text so it occurs exactly once. Nothing was changed.`
    case "Overlap":
      return `edit ${refusal.editIndex} overlaps edit ${refusal.otherIndex} near line ${refusal.line}; merge them into one edit. Nothing was changed.`
  }
}
