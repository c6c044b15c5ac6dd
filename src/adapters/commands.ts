import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { CommandName } from "../domain/protocol.ts"
import type { PiHost as Host } from "./host.ts"

/**
 * `/wipe-memory` and `/pi-context <subcommand>`. The subcommands live in
 * src/commands/ (one file each, listed in registry.ts); this adapter only
 * splits the words, finds the command and shows its report.
 */
export const registerCommands = (pi: ExtensionAPI, load: () => Promise<Host>): void => {
  pi.registerCommand(CommandName.wipeMemory, {
    description: "End this context window now: write a reset boundary and start fresh from your notes (no model call)",
    handler: async (_args, ctx) => (await load()).wipeCommand(ctx)
  })
  pi.registerCommand(CommandName.piContext, {
    description: "pi-context: status, reports, on and off (Tab lists every subcommand)",
    getArgumentCompletions: async (prefix) =>
      (await load()).subcommands
        .filter((command) => command.name.startsWith(prefix.trim()))
        .map((command) => ({ value: command.name, label: command.name })),
    handler: async (args, ctx) => {
      const host = await load()
      const [name = host.defaultSubcommand, ...rest] = args.trim().split(/\s+/).filter((word) => word.length > 0)
      const command = host.subcommands.find((candidate) => candidate.name === name)
      if (command === undefined) {
        const names = host.subcommands.map((candidate) => candidate.name).join(", ")
        return ctx.ui.notify(`pi-context: unknown subcommand "${name}". Use one of: ${names}.`, "warning")
      }
      const report = await host.command(command, rest, ctx)
      if (report !== undefined) ctx.ui.notify(report, "info")
    }
  })
}
