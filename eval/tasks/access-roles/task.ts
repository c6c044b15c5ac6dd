/** Access granted one review at a time, each role given once by the desk: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const accessRoles = deskTask({
  name: "access-roles",
  kind: "access granted one review at a time, each role given once by the desk",
  desk: "review",
  file: "access/roles.csv",
  salt: 505,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `user${n}@corp,${random.pick(["viewer", "guest", "none"])}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split(",")[0]},${random.pick(["editor", "owner", "auditor", "billing"])}-${random.int(1, 9)}` }
  },
  noise: logLine("review", ["reviewer", "directory", "sso"], ["group synced", "session expired", "token refreshed", "review queued", "directory page fetched"])
})
