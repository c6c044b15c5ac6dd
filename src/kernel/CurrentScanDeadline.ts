import { Context } from "effect"
import { type ScanDeadline, unlimitedScan } from "./scanDeadline.ts"

/**
 * Starts the scan budget of the tool call in progress: a service calls it
 * when its scan begins (after an index catch-up or a directory walk, which
 * take the time they take) and stops on it with a cursor. The tool runner
 * sets it for each call; outside a tool call nothing is ever spent.
 */
export const CurrentScanDeadline = Context.Reference<() => ScanDeadline>("pi-context/CurrentScanDeadline", {
  defaultValue: () => () => unlimitedScan
})
