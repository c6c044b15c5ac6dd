import { Effect } from "effect"
import { textReport } from "../domain/report.ts"
import { Lifecycle } from "../services/Lifecycle.ts"
import { report, subcommand } from "./Subcommand.ts"

/**
 * `/pi-context status`: version, window, usage, settings and trace file. A
 * report, so Pi's TUI draws it at the chat's width: the trace path wraps at
 * its separators, never inside a name.
 */
export const status = subcommand({ name: "status", run: () => Lifecycle.use((lifecycle) => Effect.map(lifecycle.statusReport, (text) => report(textReport(text)))) })
