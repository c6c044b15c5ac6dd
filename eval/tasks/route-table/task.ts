/** Routes moved one at a time to services the desk names once: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const routeTable = deskTask({
  name: "route-table",
  kind: "routes moved one at a time to services the desk names once",
  desk: "routing",
  file: "config/routes.txt",
  salt: 909,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `/api/v${n}/${random.pick(["orders", "users", "stock"])} -> legacy:${random.int(8000, 8999)}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split(" -> ")[0]} -> ${random.pick(["mesh", "edge", "core"])}-${random.int(10, 99)}:${random.int(9000, 9999)}` }
  },
  noise: logLine("routing", ["router", "balancer", "probe"], ["health check ok", "upstream drained", "weights applied", "connection reused", "retry budget ok"])
})
