/** A chain of vault slots, each rotated value given once by the desk's output: one family of the desk (see ../desk.ts). */
import { deskTask, lineFor, logLine, numbered } from "../desk.ts"

export const vaultSlots = deskTask({
  name: "vault-slots",
  kind: "a chain of vault slots, each rotated value given once by the desk's output",
  desk: "vault",
  file: "config/vault.ini",
  salt: 101,
  steps: 6,
  noiseLines: 400,
  lines: (random) => numbered(13, (n) => `slot_${n} = ${random.pick(["old", "stale", "seed"])}-${random.int(1000, 9999)}`),
  change: (random, lines, index) => {
    const before = lines[lineFor(index, lines.length)]!
    return { before, after: `${before.split(" = ")[0]} = rotated-${random.int(10_000, 99_999)}` }
  },
  noise: logLine("vault", ["keeper", "sealer", "auditor"], ["slot lease renewed", "rotation window checked", "replica in sync", "stale lease dropped", "audit trail flushed"])
})
