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

// A token is a UTF-16 unit to match (>= 0), or one of these.
const One = -1
const Star = -2
const CrossingStar = -3

/** Whether `pattern` uses glob syntax at all (else callers treat it as plain text). */
export const hasGlobSyntax = (pattern: string): boolean => pattern.includes("*") || pattern.includes("?")

/** Tokens in a typed array: a pattern of a million characters is tokenized in milliseconds. */
const tokenize = (pattern: string): { readonly tokens: Int32Array; readonly size: number; readonly needed: number } => {
  const tokens = new Int32Array(pattern.length)
  let size = 0
  let needed = 0
  for (let i = 0; i < pattern.length; i++) {
    const unit = pattern.charCodeAt(i)
    if (unit !== 42) {
      tokens[size++] = unit === 63 ? One : unit
      needed++
      continue
    }
    // A run of stars is one star; two or more cross the separator.
    let run = 1
    while (pattern.charCodeAt(i + 1) === 42) {
      run++
      i++
    }
    tokens[size++] = run > 1 ? CrossingStar : Star
  }
  return { tokens, size, needed }
}

/** The literal runs of a pattern, each with whether it is anchored at the text's start or end. */
interface LiteralRuns {
  readonly runs: ReadonlyArray<string>
  readonly first: "prefix" | "anywhere"
  readonly last: "suffix" | "anywhere"
}

const literalRuns = (tokens: Int32Array, size: number): LiteralRuns => {
  const runs: Array<string> = []
  let run = ""
  for (let i = 0; i < size; i++) {
    const token = tokens[i]!
    if (token >= 0) run += String.fromCharCode(token)
    else if (run !== "") {
      runs.push(run)
      run = ""
    }
  }
  if (run !== "") runs.push(run)
  return { runs, first: size > 0 && tokens[0]! >= 0 ? "prefix" : "anywhere", last: size > 0 && tokens[size - 1]! >= 0 ? "suffix" : "anywhere" }
}

/**
 * Whether every literal run of the pattern is in `text`, in order and apart:
 * what any match needs, found with `indexOf`, so a listing glob rejects most
 * addresses without running the simulation.
 */
const holdsInOrder = (text: string, { runs, first, last }: LiteralRuns): boolean => {
  if (runs.length === 0) return true
  if (first === "prefix" && !text.startsWith(runs[0]!)) return false
  if (last === "suffix" && !text.endsWith(runs[runs.length - 1]!)) return false
  let from = 0
  for (const run of runs) {
    const at = text.indexOf(run, from)
    if (at === -1) return false
    from = at + run.length
  }
  return true
}

/** A matcher for the whole of a text (anchored at both ends). */
export const compileGlob = (pattern: string, options: GlobOptions = {}): (text: string) => boolean => {
  const fold = options.ignoreCase === true ? foldCase : (text: string) => text
  const { tokens, size, needed } = tokenize(fold(pattern))
  const separator = options.separator === undefined ? -1 : options.separator.charCodeAt(0)
  // Live positions (position p: tokens before p matched), deduplicated by a generation mark per position.
  const marks = new Uint32Array(size + 1)
  let generation = 0
  const isStar = (position: number) => position < size && tokens[position]! <= Star
  const mustHold = literalRuns(tokens, size)
  return (raw: string): boolean => {
    // A text shorter than the characters the glob needs cannot match.
    if (raw.length < needed) return false
    const text = fold(raw)
    if (!holdsInOrder(text, mustHold)) return false
    let live: Array<number> = []
    let next: Array<number> = []
    const add = (list: Array<number>, start: number) => {
      // A star may match nothing, so reaching it also reaches the position after it.
      for (let position = start; position <= size && marks[position] !== generation; position++) {
        marks[position] = generation
        list.push(position)
        if (!isStar(position)) break
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
        if (token >= 0) {
          if (token === unit) add(next, position + 1)
        } else if (token === One) {
          if (unit !== separator) add(next, position + 1)
        } else if (token === CrossingStar || unit !== separator) {
          add(next, position)
        }
      }
      ;[live, next] = [next, live]
    }
    return live.includes(size)
  }
}
