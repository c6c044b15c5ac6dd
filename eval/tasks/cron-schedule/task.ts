/** Jobs rescheduled one at a time, each new time given once by the desk: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const cronSchedule = deskTask({
  name: "cron-schedule",
  kind: "jobs rescheduled one at a time, each new time given once by the desk",
  desk: "cron",
  file: "ops/crontab",
  salt: 707,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `${random.int(0, 59)} ${random.int(0, 23)} * * * /opt/jobs/job${n}.sh`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${random.int(0, 59)} ${random.int(0, 23)} * * ${random.int(1, 5)} ${before.split(" ").at(-1)}` }
  },
  noise: logLine("cron", ["scheduler", "runner", "reaper"], ["job started", "job finished", "lock held", "overlap skipped", "exit code 0"])
})
