import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { CommandName } from "../domain/protocol.ts"
import type { PiHost as Host } from "./host.ts"
import { browseNotes } from "./notesBrowser.ts"
import { showReport, textReport } from "./reportView.ts"

const subcommands = ["on", "off", "status", "doctor", "trace", "windows", "notes", "tidy"] as const

/** The words after `notes` that belong to the notes history; anything else browses the notes. */
const notesHistoryWords: ReadonlySet<string> = new Set(["history", "diff", "restore"])

/** `/wipe-memory` and `/pi-context [on|off|status|doctor|trace|windows|notes [history|diff|restore]|tidy]`. */
export const registerCommands = (pi: ExtensionAPI, load: () => Promise<Host>): void => {
  pi.registerCommand(CommandName.wipeMemory, {
    description: "End this context window now: write a reset boundary and start fresh from your notes (no model call)",
    handler: async (_args, ctx) => (await load()).wipeCommand(ctx)
  })
  pi.registerCommand(CommandName.piContext, {
    description: "pi-context: on | off | status | doctor | trace | windows | notes [history|diff|restore] | tidy [--dry-run]",
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
          return showReport(pi, ctx, textReport(await host.doctor(ctx)))
        case "trace":
          return showReport(pi, ctx, textReport(await host.trace(ctx)))
        case "windows":
          return showReport(pi, ctx, { kind: "windows", ...(await host.windows(ctx)) })
        case "notes":
          if (rest[0] !== undefined && notesHistoryWords.has(rest[0])) return ctx.ui.notify(await host.notesHistory(rest, ctx), "info")
          return browseNotes(pi, ctx, host, rest)
        case "tidy":
          return ctx.ui.notify(await host.tidy(rest, ctx), "info")
        default:
          return ctx.ui.notify(`pi-context: unknown subcommand "${sub}". Use one of: ${subcommands.join(", ")}.`, "warning")
      }
    }
  })
}
