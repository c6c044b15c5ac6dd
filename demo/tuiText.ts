/** What `npm run demo -- --tui` tells the user: the hint Pi's TUI shows above the editor, and the lines printed after Pi exits. */

/** The words the demo model reacts to (demo/tuiModel.ts), shown above Pi's editor for the whole demo. */
export const tryHint: ReadonlyArray<string> = [
  "pi-context demo (offline scripted model, 32k window). Try: note <text> · remember <text> · big (fills the window) · wipe",
  "  /wipe-memory · /pi-context status · /pi-context windows · /pi-context notes · /quit (or Ctrl+D) to leave"
]

const shellQuoted = (path: string) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`)

/** Printed after Pi exits: the demo's folder is gone, and the two commands that go on from here, as they run. */
export const closingLines = (repoRoot: string, invokedFrom: string): string => {
  const here = invokedFrom === repoRoot ? "" : `cd ${shellQuoted(repoRoot)} && `
  return [
    "pi-context demo over: its session, notes and trace lived in a temporary folder, now removed.",
    `  again:               ${here}npm run demo -- --tui`,
    `  in your own Pi:      ${here}npx pi install "$PWD"`,
    ""
  ].join("\n")
}
