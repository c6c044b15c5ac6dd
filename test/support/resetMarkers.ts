import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import { type Harness, type HarnessDirs, makeDirs } from "./sdkHarness.ts"

/** A small window and lines to cross it in a few prompts, for the Pi-loop tests of what a reset shows. */
export const smallWindow = { contextWindow: 10_000, lines: { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 } } as const

/** A user message of about `tokens` tokens. */
export const filler = (tokens: number, tag = "z") => `${tag} ${"x".repeat(tokens * 4)}`

const plainTheme = { fg: (_color: string, text: string) => text, bg: (_color: string, text: string) => text } as never

/** Temp dirs whose agent settings are `settings`. */
export const dirsWith = (settings: Record<string, unknown>): HarnessDirs => {
  const dirs = makeDirs()
  mkdirSync(dirs.agentDir, { recursive: true })
  writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify(settings, null, 2))
  return dirs
}

export const markers = (h: Harness) => h.entries().filter((e) => e.type === "custom" && e.customType === "pi-context/reset-marker")

/** The reset marker as Pi's TUI draws it, at `width` columns, without colours. */
export const renderMarker = (h: Harness, entry: SessionEntry, expanded = false, width = 200) =>
  h.session.extensionRunner!.getEntryRenderer("pi-context/reset-marker")!(entry as never, { expanded } as never, plainTheme)!
    .render(width)
    .map((line) => line.trimEnd())
    .join("\n")
