import { Result, Schema } from "effect"
import type { RE2JS } from "re2js"
import { foldCase } from "./caseFold.ts"
import type { ScanDeadline } from "./scanDeadline.ts"
import { echo } from "./toolOutcome.ts"

/**
 * Every text pattern a user or a model supplies is compiled here, to code
 * that runs in time linear in the text: a literal is found with `indexOf`
 * over case-folded text, a regex runs on RE2 (no backtracking), one line at
 * a time. Globs live in `glob.ts`.
 */

/** Longest regex compiled: compiling costs time in proportion to the source. */
export const maxRegexLength = 4_000
/** Largest compiled regex, in RE2 instructions: when RE2's DFA gives up, each character costs up to this many steps. */
export const maxRegexProgram = 1_000
/** A regex never sees more than this many UTF-16 units at once: a longer line is matched in overlapping pieces. */
export const regexPieceLength = 65_536
const pieceOverlap = 1_024
/** Text length × program size up to which RE2's NFA gives a match's exact position (about 2 ms at the worst). */
const exactLocateWork = 30_000
/** A match in a longer line is placed within a window of this many UTF-16 units. */
const locateWindow = 4_096
/** UTF-16 units a regex scan handles between two looks at its budget; a line counts as `unitsPerLine` at least. */
const unitsPerBudgetCheck = 16_384
const unitsPerLine = 256

/** A pattern that cannot be used; `reason` completes "the regex … ", with what to do. The one error of every tool that takes a pattern. */
export class InvalidPattern extends Schema.TaggedError<InvalidPattern>()("InvalidPattern", {
  pattern: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the regex "${echo(this.pattern)}" ${this.reason}.`
  }
}

/** One step of a scan: a match at `index`, the end of the text, or a stop on the budget before the line at `at`. */
export type ScanStep =
  | { readonly _tag: "Match"; readonly index: number }
  | { readonly _tag: "End" }
  | { readonly _tag: "Stopped"; readonly at: number }

const noMatch: ScanStep = { _tag: "End" }

export interface TextPattern {
  readonly source: string
  readonly regex: boolean
  /**
   * A scanner over one text: from a line start `from`, the first match at or
   * after it. A literal may span lines; a regex matches within one line
   * (without its line break, `^` and `$` are the line's ends). With
   * `lineOnly`, a regex match may be given as its line's start, which is
   * cheaper to find.
   */
  readonly scanner: (text: string, lineOnly?: boolean) => (from: number, budget?: ScanDeadline) => ScanStep
  /** The UTF-16 index of the first match in `text`, or -1. */
  readonly indexIn: (text: string) => number
}

const literalPattern = (query: string): TextPattern => {
  const needle = foldCase(query)
  const scanner = (text: string) => {
    let folded: string | undefined
    return (from: number): ScanStep => {
      folded ??= foldCase(text)
      const index = folded.indexOf(needle, from)
      return index === -1 ? noMatch : { _tag: "Match", index }
    }
  }
  return { source: query, regex: false, scanner, indexIn: (text) => foldCase(text).indexOf(needle) }
}

/**
 * Whether the regex may assert something about where its text starts or ends
 * (`^`, `$`, `\b`, `\B`, `\A`, `\z`). Such a regex would see a false edge
 * where a long line is cut, so it is run on the whole line. Any `^` counts,
 * even one that negates a class: the whole line is always a correct answer.
 */
const assertsEdges = (source: string): boolean => /[\^$]|\\[bBAz]/.test(source)

type LineTest = "Match" | "None" | "Stopped"

/**
 * A line tested whole when short or when the regex asserts edges, else in
 * pieces that overlap so that no short match is cut; `stop` is asked between
 * two pieces.
 */
const testLine = (re: RE2JS, cuttable: boolean, line: string, stop: () => boolean): LineTest => {
  if (line.length <= regexPieceLength || !cuttable) return re.test(line) ? "Match" : "None"
  for (let start = 0; start < line.length; start += regexPieceLength - pieceOverlap) {
    if (start > 0 && stop()) return "Stopped"
    if (re.test(line.slice(start, start + regexPieceLength))) return "Match"
  }
  return "None"
}

/** The smallest `q` for which `holds(q)`, given that it holds at `high` and once it holds it keeps holding. */
const firstHolding = (low: number, high: number, holds: (q: number) => boolean): number => {
  while (low < high) {
    const mid = (low + high) >>> 1
    if (holds(mid)) high = mid
    else low = mid + 1
  }
  return low
}

/**
 * Where the match starts in a text known to match. RE2 tests fast (a DFA)
 * but finds positions slowly (an NFA, in time text × program), so the NFA
 * runs only where that product is small; elsewhere two binary searches of
 * tests place the match that ends first: its end, then the latest start
 * that still matches before it. A regex that asserts edges can see a false
 * one in a slice, so there the place is approximate.
 */
const locateIn = (re: RE2JS, text: string): number => {
  if (text.length * re.programSize() <= exactLocateWork) {
    const matcher = re.matcher(text)
    return matcher.find() ? matcher.start() : 0
  }
  const end = firstHolding(0, text.length, (q) => re.test(text.slice(0, q)))
  return end - firstHolding(0, end, (length) => re.test(text.slice(end - length, end)))
}

/**
 * Where the match starts in a line known to match: in a short line, there;
 * in a long one, in the first window that matches alone (a regex that
 * asserts edges would see false ones in a window: the line start).
 */
const locate = (re: RE2JS, cuttable: boolean, line: string): number => {
  if (line.length <= locateWindow) return locateIn(re, line)
  if (!cuttable) return 0
  for (let start = 0; start < line.length; start += locateWindow - pieceOverlap) {
    const window = line.slice(start, start + locateWindow)
    if (re.test(window)) return start + locateIn(re, window)
  }
  return 0
}

const regexPattern = (source: string, re: RE2JS): TextPattern => {
  const cuttable = !assertsEdges(source)
  const scanner = (text: string, lineOnly = false) => (from: number, budget?: ScanDeadline): ScanStep => {
    // The first line is always scanned to its end, so that a resumed scan moves on.
    let first = true
    let unchecked = 0
    const stop = () => {
      if (first || budget === undefined || unchecked < unitsPerBudgetCheck) return false
      unchecked = 0
      return budget.spent()
    }
    for (let start = from; start <= text.length; first = false) {
      if (stop()) return { _tag: "Stopped", at: start }
      const newline = text.indexOf("\n", start)
      const lineEnd = newline === -1 ? text.length : newline
      const line = lineEnd > start && text.charCodeAt(lineEnd - 1) === 13 ? text.slice(start, lineEnd - 1) : text.slice(start, lineEnd)
      unchecked += Math.max(line.length, unitsPerLine)
      const tested = testLine(re, cuttable, line, () => {
        unchecked = unitsPerBudgetCheck
        return stop()
      })
      if (tested === "Stopped") return { _tag: "Stopped", at: start }
      if (tested === "Match") return { _tag: "Match", index: lineOnly ? start : start + locate(re, cuttable, line) }
      if (newline === -1) break
      start = newline + 1
    }
    return noMatch
  }
  const indexIn = (text: string): number => {
    const step = scanner(text)(0)
    return step._tag === "Match" ? step.index : -1
  }
  return { source, regex: true, scanner, indexIn }
}

/** RE2's messages name the flags we add; the model wrote none of them. */
const reasonOf = (error: unknown): string => {
  const text = (error instanceof Error ? error.message : String(error)).replace("(?i)", "").replace(/^error parsing regexp: /, "")
  const unsupported = /\\[1-9]|\(\?[=!<]/.test(text) ? " (RE2 has no backreferences or lookaround)" : ""
  return `is invalid (${echo(text, 300)})${unsupported}; fix it, or search for the text literally without regex: true`
}

/**
 * RE2 for JavaScript (re2js): a third of the runtime's bundled code (149 of
 * 486 KB), evaluated before the first request when it was imported with the
 * runtime; the layers import it on the first regex a tool is given
 * (kernel/regexEngine.ts).
 */
export type RegexEngine = typeof RE2JS

/**
 * Compiles a search query: literal text, or (with `regex`) a JavaScript-style
 * regular expression run on RE2, which `engine` is. Both ignore case. Only a
 * regex can fail.
 */
export const compileQuery = (query: string, regex: boolean, engine: RegexEngine | undefined): Result.Result<TextPattern, InvalidPattern> => {
  if (!regex) return Result.succeed(literalPattern(query))
  if (engine === undefined) {
    return Result.fail(
      new InvalidPattern({ pattern: query, reason: "cannot be run: the regex engine did not load; search for the text literally without regex: true" })
    )
  }
  if (query.length > maxRegexLength) {
    return Result.fail(
      new InvalidPattern({
        pattern: query,
        reason: `is ${query.length} characters long, over the limit of ${maxRegexLength}; search for long text literally without regex: true`
      })
    )
  }
  let re: RE2JS
  try {
    re = engine.compile(engine.translateRegExp(query), engine.CASE_INSENSITIVE)
  } catch (error) {
    return Result.fail(new InvalidPattern({ pattern: query, reason: reasonOf(error) }))
  }
  const size = re.programSize()
  if (size > maxRegexProgram) {
    return Result.fail(
      new InvalidPattern({
        pattern: query,
        reason: `is too complex: it compiles to ${size} steps, over the limit of ${maxRegexProgram} (large counted repetitions such as {0,500} are the usual cause); simplify it`
      })
    )
  }
  return Result.succeed(regexPattern(query, re))
}
