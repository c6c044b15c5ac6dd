import { Effect } from "effect"
import { Lifecycle } from "../reset/Lifecycle.ts"
import { quiet, subcommand } from "../kernel/Subcommand.ts"

const setEnabled = (enabled: boolean) => () => Lifecycle.use((lifecycle) => lifecycle.setEnabled(enabled)).pipe(Effect.as(quiet))

/** `/pi-context on`: resets resume in this session. */
export const on = subcommand({ name: "on", run: setEnabled(true) })

/** `/pi-context off`: no reminders or automatic resets in this session; the boundary already written stays, and /wipe-memory still works. */
export const off = subcommand({ name: "off", run: setEnabled(false) })
