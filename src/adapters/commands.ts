import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { CommandName } from "../domain/protocol.ts"
import type { Host } from "../runtime.ts"

const subcommands = ["on", "off", "status", "doctor", "trace", "notes", "tidy"] as const

/** `/wipe-memory` and `/pi-context [on|off|status|doctor|trace|notes history|diff|restore|tidy]`. */
export const registerCommands = (pi: ExtensionAPI, load: () => Promise<Host>): void => {
  pi.registerCommand(CommandName.wipeMemory, {
    description: "End this context window now: write a reset boundary and start fresh from your notes (no model call)",
    handler: async (_args, ctx) => (await load()).wipeCommand(ctx)
  })
  pi.registerCommand(CommandName.piContext, {
    description: "pi-context: on | off | status | doctor | trace | notes history|diff|restore | tidy [--dry-run]",
    getArgumentCompletions: (prefix) =>
      subcommands.filter((name) => name.startsWith(prefix.trim())).map((name) => ({ value: name, label: name })),
    handler: async (args, ctx) => {
      const host = await load()
      const [sub = "status", ...rest] = args.trim().split(/\s+/).filter((word) => word.length > 0)
      switch (sub) {
        case "on":
        case "off":
          return host.setEnabled(sub === "on", ctx)
        case "status":
          return ctx.ui.notify(await host.status(ctx), "info")
        case "doctor":
          return ctx.ui.notify(await host.doctor(ctx), "info")
        case "trace":
          return ctx.ui.notify(await host.trace(ctx), "info")
        case "notes":
          return ctx.ui.notify(await host.notesHistory(rest, ctx), "info")
        case "tidy":
          return ctx.ui.notify(await host.tidy(rest, ctx), "info")
        default:
          return ctx.ui.notify(`pi-context: unknown subcommand "${sub}". Use one of: ${subcommands.join(", ")}.`, "warning")
      }
    }
  })
}
