/** Interface strings reworded one at a time, each text given once by the desk: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const localeStrings = deskTask({
  name: "locale-strings",
  kind: "interface strings reworded one at a time, each text given once by the desk",
  desk: "wording",
  file: "i18n/en.properties",
  salt: 1010,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `label.${random.pick(["save", "cancel", "next", "back"])}${n} = ${random.pick(["Save", "Cancel", "Next", "Back"])} draft ${random.int(10, 99)}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split(" = ")[0]} = ${random.pick(["Keep", "Drop", "Go on", "Return"])} ${random.pick(["now", "later", "here"])} ${random.int(100, 999)}` }
  },
  noise: logLine("wording", ["translator", "linter", "bundler"], ["catalog loaded", "plural rule checked", "fallback used", "bundle hashed", "glossary synced"])
})
