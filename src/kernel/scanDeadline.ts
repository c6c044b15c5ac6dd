/**
 * A cooperative time limit for synchronous scans. A timer cannot interrupt
 * CPU-bound JavaScript, so a scan asks between two steps whether its budget
 * is spent, and then stops with a cursor instead of holding Pi's event loop.
 */
export interface ScanDeadline {
  readonly spent: () => boolean
}

/** Never spent: pure callers and tests that do not exercise the limit. */
export const unlimitedScan: ScanDeadline = { spent: () => false }

/** Spent `ms` milliseconds after `now()` first answered; `now` is read on every check. */
export const scanDeadlineOf = (ms: number, now: () => number): ScanDeadline => {
  const deadline = now() + ms
  return { spent: () => now() >= deadline }
}
