/** DNS records moved one at a time to addresses the desk names once: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const dnsRecords = deskTask({
  name: "dns-records",
  kind: "DNS records moved one at a time to addresses the desk names once",
  desk: "zone",
  file: "zones/example.zone",
  salt: 606,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `host${n} IN A 10.0.${random.int(0, 255)}.${random.int(1, 254)}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split(" IN A ")[0]} IN A 172.16.${random.int(0, 255)}.${random.int(1, 254)}` }
  },
  noise: logLine("zone", ["resolver", "primary", "secondary"], ["zone transfer ok", "serial bumped", "ttl expired", "notify sent", "cache purged"])
})
