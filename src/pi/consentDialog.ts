import type { ExtensionContext } from "@earendil-works/pi-coding-agent"
import type { ShownLine, UserQuestion } from "../kernel/PiSession.ts"

/**
 * How long the keyboard must have been still, from the dialog's opening,
 * before a key answers it. A user typing their next prompt while the model
 * works goes on typing when the dialog opens, and the Enter that was meant
 * to send the prompt lands in the dialog: every key while the guard holds is
 * kept from the dialog, and starts the guard again.
 */
export const ConsentGuardMs = 750

/** The dialog's answers, No first: Pi's selector opens on its first option, so Enter alone says No. */
export const ConsentNo = "No, leave the note as it is"
export const ConsentYes = "Yes, allow this change"

const toneColour = { context: "toolDiffContext", removed: "toolDiffRemoved", added: "toolDiffAdded", muted: "muted" } as const

const prefix = (line: ShownLine): string =>
  line.tone === "removed" ? `- ${line.text}` : line.tone === "added" ? `+ ${line.text}` : line.tone === "context" ? `  ${line.text}` : line.text

/** The question as Pi's selector shows it: its lines in the theme's diff colours (or plain, without a theme). */
const dialogText = (ctx: ExtensionContext, question: UserQuestion): string => {
  const theme = ctx.ui.theme as { readonly fg?: (colour: string, text: string) => string } | undefined
  const colour = (name: string, text: string) => (typeof theme?.fg === "function" ? theme.fg(name, text) : text)
  return [
    question.title,
    question.message,
    "",
    ...question.lines.map((line) => colour(toneColour[line.tone], prefix(line))),
    "",
    colour("muted", "Keys typed as this opened do not count: pause, then choose.")
  ].join("\n")
}

/** A key that is text to keep in the editor (no control character: not Enter, not an arrow or an escape sequence). */
const isTyped = (data: string): boolean => data.length > 0 && !/\p{Cc}/u.test(data)

/**
 * Asks in Pi's selector with No first, behind the guard: raw terminal input
 * reaches extensions before the focused dialog, so the keys that arrive
 * while it holds are consumed here. Text typed then goes back to the editor,
 * where the user meant it to go.
 */
export const askInDialog = async (ctx: ExtensionContext, question: UserQuestion): Promise<"yes" | "no"> => {
  let guardFrom = performance.now()
  let typed = ""
  const stop = ctx.ui.onTerminalInput((data) => {
    const now = performance.now()
    if (now - guardFrom >= ConsentGuardMs) return undefined
    guardFrom = now
    if (isTyped(data)) typed += data
    return { consume: true }
  })
  try {
    const choice = await ctx.ui.select(dialogText(ctx, question), [ConsentNo, ConsentYes])
    return choice === ConsentYes ? "yes" : "no"
  } finally {
    stop()
    if (typed !== "") ctx.ui.setEditorText(`${ctx.ui.getEditorText()}${typed}`)
  }
}
