/** Feature flags rolled out one at a time, each percentage said once by the desk: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const flagRollout = deskTask({
  name: "flag-rollout",
  kind: "feature flags rolled out one at a time, each percentage said once by the desk",
  desk: "rollout",
  file: "config/flags.txt",
  salt: 202,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `flag.${random.pick(["checkout", "search", "billing", "profile"])}_${n} = off`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: before.replace(" = off", ` = ${random.int(5, 95)}%`) }
  },
  noise: logLine("rollout", ["canary", "ramp", "gate"], ["cohort sampled", "error budget ok", "latency within bound", "cohort widened", "metrics exported"])
})
