import { Effect } from "effect"
import { Lifecycle } from "../services/Lifecycle.ts"
import { notice, subcommand } from "./Subcommand.ts"

/** `/pi-context status`: version, window, usage, settings and trace file. */
export const status = subcommand({ name: "status", run: () => Lifecycle.use((lifecycle) => Effect.map(lifecycle.statusReport, (text) => notice(text))) })
