/**
 * Lower case without changing the length in UTF-16 units, so an index in the
 * folded text is the same index in the original. U+0130 is the only code
 * point whose lower case is longer (i + combining dot); it folds to `i`.
 */
export const foldCase = (text: string): string =>
  (text.includes("\u0130") ? text.replaceAll("\u0130", "i") : text).toLowerCase()
