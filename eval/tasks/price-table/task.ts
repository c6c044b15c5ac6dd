/** Prices changed one at a time, each new price given once by the desk: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const priceTable = deskTask({
  name: "price-table",
  kind: "prices changed one at a time, each new price given once by the desk",
  desk: "pricing",
  file: "data/prices.csv",
  salt: 808,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `SKU-${n}${random.int(100, 999)},${random.int(1, 99)}.${random.int(10, 99)}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split(",")[0]},${random.int(100, 999)}.${random.int(10, 99)}` }
  },
  noise: logLine("pricing", ["pricer", "catalog", "tax"], ["basket repriced", "promo expired", "currency rate fetched", "catalog page cached", "rounding applied"])
})
