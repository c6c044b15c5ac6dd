/** Columns widened one migration at a time, each size given once by the desk: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const schemaColumns = deskTask({
  name: "schema-columns",
  kind: "columns widened one migration at a time, each size given once by the desk",
  desk: "migrate",
  file: "db/schema.sql",
  salt: 404,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `  col_${random.pick(["name", "code", "note", "tag"])}_${n} VARCHAR(${random.int(8, 40)}),`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: before.replace(/VARCHAR\(\d+\)/, `VARCHAR(${random.int(64, 512)})`) }
  },
  noise: logLine("migrate", ["migrator", "planner", "vacuum"], ["lock acquired", "plan cached", "stats refreshed", "lock released", "checkpoint written"])
})
