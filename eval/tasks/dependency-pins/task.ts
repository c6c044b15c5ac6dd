/** Dependencies pinned one at a time to versions the desk names once: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const dependencyPins = deskTask({
  name: "dependency-pins",
  kind: "dependencies pinned one at a time to versions the desk names once",
  desk: "pins",
  file: "requirements.txt",
  salt: 303,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `lib${random.pick(["http", "yaml", "orm", "cache"])}${n}==${random.int(1, 3)}.${random.int(0, 9)}.${random.int(0, 9)}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split("==")[0]}==${random.int(4, 9)}.${random.int(0, 20)}.${random.int(0, 20)}` }
  },
  noise: logLine("pins", ["resolver", "mirror", "scanner"], ["advisory feed synced", "wheel cache warm", "license check passed", "index mirrored", "hash verified"])
})
