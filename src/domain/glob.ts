import { foldCase } from "./caseFold.ts"

/**
 * Globs (`*`, `**`, `?`) matched by simulating all their positions at once:
 * time proportional to the text times the live positions, never exponential,
 * whatever the number of stars.
 */

export interface GlobOptions {
  /** `*` and `?` never match it, `**` does. Without one, `*` and `**` both match anything. */
  readonly separator?: string
  readonly ignoreCase?: boolean
}

type Token =
  | { readonly _tag: "Char"; readonly unit: number }
  | { readonly _tag: "One" }
  | { readonly _tag: "Star"; readonly crosses: boolean }

/** Whether `pattern` uses glob syntax at all (else callers treat it as plain text). */
export const hasGlobSyntax = (pattern: string): boolean => pattern.includes("*") || pattern.includes("?")

const tokenize = (pattern: string): ReadonlyArray<Token> => {
  const tokens: Array<Token> = []
  for (let i = 0; i < pattern.length; i++) {
    const unit = pattern.charCodeAt(i)
    if (unit === 63) tokens.push({ _tag: "One" })
    else if (unit !== 42) tokens.push({ _tag: "Char", unit })
    else {
      // A run of stars is one star; two or more cross the separator.
      let run = 1
      while (pattern.charCodeAt(i + 1) === 42) {
        run++
        i++
      }
      tokens.push({ _tag: "Star", crosses: run > 1 })
    }
  }
  return tokens
}

/** A matcher for the whole of a text (anchored at both ends). */
export const compileGlob = (pattern: string, options: GlobOptions = {}): (text: string) => boolean => {
  const fold = options.ignoreCase === true ? foldCase : (text: string) => text
  const tokens = tokenize(fold(pattern))
  const separator = options.separator === undefined ? -1 : options.separator.charCodeAt(0)
  const size = tokens.length
  // A text shorter than the characters the glob needs cannot match.
  const needed = tokens.filter((token) => token._tag !== "Star").length
  // Live positions (position p: tokens before p matched), deduplicated by a generation mark per position.
  const marks = new Uint32Array(size + 1)
  let generation = 0
  return (raw: string): boolean => {
    if (raw.length < needed) return false
    const text = fold(raw)
    let live: Array<number> = []
    let next: Array<number> = []
    const add = (list: Array<number>, start: number) => {
      // A star may match nothing, so reaching it also reaches the position after it.
      for (let position = start; position <= size && marks[position] !== generation; position++) {
        marks[position] = generation
        list.push(position)
        if (position === size || tokens[position]!._tag !== "Star") break
      }
    }
    generation++
    add(live, 0)
    for (let i = 0; i < text.length && live.length > 0; i++) {
      const unit = text.charCodeAt(i)
      generation++
      next.length = 0
      for (const position of live) {
        if (position === size) continue
        const token = tokens[position]!
        if (token._tag === "Char") {
          if (token.unit === unit) add(next, position + 1)
        } else if (token._tag === "One") {
          if (unit !== separator) add(next, position + 1)
        } else if (token.crosses || unit !== separator) {
          add(next, position)
        }
      }
      ;[live, next] = [next, live]
    }
    return live.includes(size)
  }
}
