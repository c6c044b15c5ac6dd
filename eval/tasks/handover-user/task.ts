/** A chain begun in one session and finished in the next: the user's sign-off (user notes) and the chain's state (project notes) must outlive the first session: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const handoverUser = deskTask({
  name: "handover-user",
  kind: "a chain begun in one session and finished in the next: the user's sign-off (user notes) and the chain's state (project notes) must outlive the first session",
  desk: "audit",
  file: "config/audit.ini",
  salt: 1212,
  steps: 8,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `check_${n} = pending-${random.int(1000, 9999)}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split(" = ")[0]} = passed-${random.int(10_000, 99_999)}` }
  },
  noise: logLine("audit", ["auditor", "ledger", "sampler"], ["sample drawn", "evidence filed", "control tested", "exception logged", "ledger balanced"]),
  handover: { afterSteps: 4, home: "@user" }
})
