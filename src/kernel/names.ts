/**
 * Note names as data. A note's name comes from a file on disk, so from anyone
 * who can put a file in a home: a sync remote, a cloned repository's in-project
 * notes, a hand. Wherever a name reaches a model or a user (the boot, the views,
 * `notes_list`, `notes_search`, notices), it must read as a name and never as
 * the text around it: no line break that starts a forged heading or step, no
 * escape sequence that retitles or clears a terminal, no leading `#`, `>`, `-`
 * or `1.` that Markdown turns into structure, no backticks that open code.
 */

/**
 * Characters no name may show raw: controls (C0, DEL, C1, so newlines and the
 * terminal's escape too), Unicode format characters (bidi overrides,
 * zero-width joiners: text that looks other than it is), the line and
 * paragraph separators, and lone surrogates.
 */
const unshowable = /[\p{Cc}\p{Cf}\u2028\u2029]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u
const unshowableAll = new RegExp(unshowable.source, "gu")

/** Whether a name holds a character that must never be shown raw (and that no note address may hold). */
export const hasUnshowableCharacter = (name: string): boolean => unshowable.test(name)

/** What Markdown reads as structure at the start of a line or an item: a heading, a quote, a list item, a numbered step. */
const structuralStart = /^(?:[#>*+=|~-]|\d+[.)](?:\s|$))/

/** A code span or fence, Markdown's escapes, quotes, and spaces at either end (invisible where a name ends). */
const needsQuoting = /[`\\"]|^\s|\s$/

const escapeCharacter = (char: string): string => {
  switch (char) {
    case "\n":
      return "\\n"
    case "\r":
      return "\\r"
    case "\t":
      return "\\t"
    default:
      return `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`
  }
}

/**
 * A name as a model or a user is shown it: as it is when it is plain;
 * otherwise in double quotes on one line, with every unshowable character
 * written as an escape (`\n`, `\u{1B}`) and backticks, backslashes and quotes
 * escaped, so that it can only read as one name.
 */
export const shownName = (name: string): string => {
  if (!unshowable.test(name) && !structuralStart.test(name) && !needsQuoting.test(name)) return name
  const escaped = name.replace(/[\\"`]/g, (char) => `\\${char}`).replace(unshowableAll, escapeCharacter)
  return `"${escaped}"`
}

/** Text from outside (a remote's message, a file name inside a sentence) with its unshowable characters written as escapes. */
export const shownText = (text: string): string => text.replace(unshowableAll, escapeCharacter)

/**
 * Every character some reader takes as a line break: LF, CR (alone or in CRLF), VT, FF, NEL and the
 * Unicode line and paragraph separators. A model's tokenizer or a renderer may honour any of them.
 */
export const lineBreak = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/

/** Controls that are no line break and no tab: the terminal's escape, a backspace, C1 codes. */
const controlAll = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g

/**
 * Text from outside quoted as data, line by line (`> `, an empty line `>`): split at every kind of line
 * break, so no reader that honours one of them sees a line of it unquoted (text that imitates a heading
 * stays inside a quote), and any other control character written as an escape (`\u{1B}`).
 */
export const quotedLines = (text: string): ReadonlyArray<string> =>
  text.split(lineBreak).map((line) => (line === "" ? ">" : `> ${line.replace(controlAll, escapeCharacter)}`))
