import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent"
import type { PiHost as Host } from "./host.ts"
import { showReport } from "./reportView.ts"

const usage = "pi-context notes: /pi-context notes [read <address> | edit <address> | boot | history | diff | restore]"

const showNote = async (pi: ExtensionAPI, ctx: ExtensionCommandContext, host: Host, address: string) => {
  const note = await host.noteText(address, ctx)
  if (!note.ok) return ctx.ui.notify(note.body, "warning")
  showReport(pi, ctx, { kind: "text", title: `${note.address} · ${note.size}`, text: note.body })
}

const showBoot = async (pi: ExtensionAPI, ctx: ExtensionCommandContext, host: Host) => {
  const boot = await host.currentBoot(ctx)
  if (boot.text === undefined) return ctx.ui.notify(`pi-context: window w${boot.ordinal} has no boot on this branch.`, "warning")
  showReport(pi, ctx, { kind: "text", title: `What the model got: the boot of w${boot.ordinal}, as sent`, text: boot.text })
}

/** Opens a note in Pi's editor; a changed text is written back to the note. */
const editNote = async (ctx: ExtensionCommandContext, host: Host, address: string) => {
  const note = await host.noteText(address, ctx)
  if (!note.ok) return ctx.ui.notify(note.body, "warning")
  const edited = await ctx.ui.editor(`${note.address} (save to write it back)`, note.body)
  if (edited === undefined || edited === note.body) return ctx.ui.notify(`pi-context: ${note.address} unchanged.`, "info")
  ctx.ui.notify(await host.saveNote(note.address, edited, ctx), "info")
}

/**
 * `/pi-context notes`: the overview (counts per home, the notes root, the
 * newest notes); in Pi's TUI a picker then opens a note to read or edit, or
 * shows the current window's boot as the model got it.
 */
export const browseNotes = async (pi: ExtensionAPI, ctx: ExtensionCommandContext, host: Host, args: ReadonlyArray<string>) => {
  const [sub, address, ...extra] = args
  if (extra.length > 0) return ctx.ui.notify(usage, "warning")
  if (sub === "boot" && address === undefined) return showBoot(pi, ctx, host)
  if (sub === "read" && address !== undefined) return showNote(pi, ctx, host, address)
  if (sub === "edit" && address !== undefined) return editNote(ctx, host, address)
  if (sub !== undefined) return ctx.ui.notify(usage, "warning")
  const overview = await host.notesOverview(ctx)
  showReport(pi, ctx, { kind: "notes", overview })
  if (ctx.mode !== "tui") return
  const bootChoice = "What the model got (the boot of this window)"
  const labels = overview.rows.map((row) => `${row.address} · ${row.size} · ${row.age}${row.title === "" ? "" : ` · ${row.title}`}`)
  const picked = await ctx.ui.select("pi-context notes: open one", [bootChoice, ...labels])
  if (picked === undefined) return
  if (picked === bootChoice) return showBoot(pi, ctx, host)
  const row = overview.rows[labels.indexOf(picked)]
  if (row === undefined) return
  const action = await ctx.ui.select(row.address, ["Read it here", "Open it in the editor"])
  if (action === "Read it here") return showNote(pi, ctx, host, row.address)
  if (action === "Open it in the editor") return editNote(ctx, host, row.address)
}
