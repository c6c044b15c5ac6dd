import { Context } from "effect"
import { type ScanBudget, unlimitedScan } from "../domain/scanBudget.ts"

/**
 * The scan budget of the tool call in progress. The tool runner sets it for
 * each call; services whose scans can run long stop on it with a cursor.
 * Outside a tool call nothing is spent.
 */
export const CurrentScanBudget = Context.Reference<ScanBudget>("pi-context/CurrentScanBudget", {
  defaultValue: () => unlimitedScan
})
