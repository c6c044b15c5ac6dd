import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent"
import type { Reply } from "../kernel/Subcommand.ts"
import { CommandName } from "../kernel/protocol.ts"
import type { LaterStep } from "../runtime.ts"
import type { PiHost as Host } from "./host.ts"
import { showReport } from "./reportView.ts"

/**
 * Shows a subcommand's reply with Pi's UI: a notice, a report that stays in
 * the chat, a picker (Pi's TUI only) or Pi's editor; the user's answer runs
 * the command's next step.
 */
const show = async (pi: ExtensionAPI, ctx: ExtensionCommandContext, reply: Reply<LaterStep>): Promise<void> => {
  switch (reply._tag) {
    case "Quiet":
      return
    case "Notice":
      return ctx.ui.notify(reply.text, reply.level)
    case "Report":
      showReport(pi, ctx, reply.report)
      return reply.then === undefined ? undefined : show(pi, ctx, reply.then)
    case "Pick": {
      if (ctx.mode !== "tui") return
      const picked = await ctx.ui.select(reply.title, reply.choices.map((choice) => choice.label))
      const choice = reply.choices.find((candidate) => candidate.label === picked)
      return choice === undefined ? undefined : show(pi, ctx, await choice.next())
    }
    case "Edit":
      return show(pi, ctx, await reply.save(await ctx.ui.editor(reply.title, reply.text))())
  }
}

/**
 * `/wipe-memory` and `/pi-context <subcommand>`. The subcommands live in
 * src/commands/ (one file each, listed in registry.ts); this adapter only
 * splits the words, finds the command and shows its reply.
 */
export const registerCommands = (pi: ExtensionAPI, load: () => Promise<Host>): void => {
  pi.registerCommand(CommandName.wipeMemory, {
    description: "End this context window now: write a reset boundary and start fresh from your notes (no model call)",
    handler: async (_args, ctx) => (await load()).wipeCommand(ctx)
  })
  pi.registerCommand(CommandName.piContext, {
    description: "pi-context: status, windows, notes, reports, on and off (Tab lists every subcommand)",
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
      return show(pi, ctx, await host.command(command, rest, ctx))
    }
  })
}
