import { Lifecycle } from "../services/Lifecycle.ts"
import { subcommand } from "./Subcommand.ts"

/** `/pi-context status`: version, window, usage, settings and trace file. */
export const status = subcommand({ name: "status", run: () => Lifecycle.use((lifecycle) => lifecycle.statusReport) })
