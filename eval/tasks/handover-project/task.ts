/** A chain begun in one session and finished in the next: the codes and receipts must outlive the first session (project notes): one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const handoverProject = deskTask({
  name: "handover-project",
  kind: "a chain begun in one session and finished in the next: the codes and receipts must outlive the first session (project notes)",
  desk: "release",
  file: "config/release.ini",
  salt: 1111,
  steps: 8,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `gate_${n} = closed-${random.int(1000, 9999)}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split(" = ")[0]} = open-${random.int(10_000, 99_999)}` }
  },
  noise: logLine("release", ["release", "signer", "notary"], ["artifact signed", "gate evaluated", "checksum stored", "notary receipt filed", "manifest pushed"]),
  handover: { afterSteps: 4, home: "@project" }
})
