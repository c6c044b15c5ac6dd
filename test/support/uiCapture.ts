import type { ExtensionUIContext, TerminalInputHandler } from "@earendil-works/pi-coding-agent"

export interface Notice {
  readonly message: string
  readonly level: "info" | "warning" | "error"
}

/** What a stand-in user does with a selector: choose an option at once (or cancel), or leave it open for keys. */
export const AwaitKeys: unique symbol = Symbol("await keys")
export type Choose = (title: string, options: ReadonlyArray<string>) => string | undefined | typeof AwaitKeys

export interface UiCapture {
  readonly notices: Array<Notice>
  /** Every status text set under each key, in order (undefined = cleared). */
  readonly statuses: Array<{ readonly key: string; readonly text: string | undefined }>
  /** Every text an extension put back into the editor. */
  readonly editorTexts: Array<string>
  /** Every confirm dialog shown, in order. */
  readonly confirms: Array<{ readonly title: string; readonly message: string }>
  /** Every selector shown, in order, with the option it was answered with once it was. */
  readonly dialogs: Array<{ readonly title: string; readonly options: ReadonlyArray<string>; answer?: string | undefined }>
  /** Raw terminal input, as interactive mode hands it to extensions before the editor. */
  readonly terminal: {
    /**
     * Sends `data` to the listeners; true when one consumed it. What none
     * consumed reaches an open selector as in Pi's: Enter chooses the option
     * it is on (the first when it opens), ↑↓ or k/j move, Escape cancels.
     */
    readonly press: (data: string) => boolean
    /** Resolves once some extension listens to terminal input. */
    readonly listening: () => Promise<void>
    /** Resolves once a selector is open and waiting for keys. */
    readonly dialogOpen: () => Promise<void>
  }
  readonly ui: ExtensionUIContext
}

/** A UI context that records notices, status lines and confirms; a confirm answers as `confirm` says (default "no"), the editor as `editor` says, other dialogs nothing. */
export const captureUi = (
  editor: (title: string, prefill: string | undefined) => string | undefined = () => undefined,
  confirm: (title: string, message: string) => boolean = () => false,
  choose: Choose = () => undefined
): UiCapture => {
  const dialogs: UiCapture["dialogs"] = []
  let open: { readonly options: ReadonlyArray<string>; selected: number; readonly finish: (answer: string | undefined) => void } | undefined
  const dialogWaiters: Array<() => void> = []
  const notices: Array<Notice> = []
  const statuses: Array<{ key: string; text: string | undefined }> = []
  const editorTexts: Array<string> = []
  const confirms: Array<{ readonly title: string; readonly message: string }> = []
  const listeners = new Set<TerminalInputHandler>()
  const waiting: Array<() => void> = []
  const known: Partial<ExtensionUIContext> = {
    notify: (message, level) => void notices.push({ message, level: level ?? "info" }),
    setStatus: (key, text) => void statuses.push({ key, text }),
    select: (title, options) => {
      const dialog: UiCapture["dialogs"][number] = { title, options }
      dialogs.push(dialog)
      const chosen = choose(title, options)
      if (chosen !== AwaitKeys) return Promise.resolve((dialog.answer = chosen))
      return new Promise((resolve) => {
        open = { options, selected: 0, finish: (answer) => ((open = undefined), (dialog.answer = answer), resolve(answer)) }
        for (const wake of dialogWaiters.splice(0)) wake()
      })
    },
    confirm: async (title, message) => {
      confirms.push({ title, message })
      return confirm(title, message)
    },
    input: async () => undefined,
    editor: async (title, prefill) => editor(title, prefill),
    getEditorText: () => "",
    setEditorText: (text) => void editorTexts.push(text),
    onTerminalInput: (handler) => {
      listeners.add(handler)
      for (const wake of waiting.splice(0)) wake()
      return () => void listeners.delete(handler)
    },
    // Colours show as tags, so a test can see which theme colour a text took.
    theme: { fg: (color: string, text: string) => `<${color}>${text}</${color}>`, bg: (_color: string, text: string) => text } as never
  }
  const ui = new Proxy(known, {
    get: (target, key) => (key in target ? target[key as keyof ExtensionUIContext] : () => undefined)
  }) as ExtensionUIContext
  const terminal = {
    press: (data: string) => {
      if ([...listeners].some((listener) => listener(data)?.consume === true)) return true
      if (open === undefined) return false
      if (data === "\r" || data === "\n") open.finish(open.options[open.selected])
      else if (data === "\x1b[B" || data === "j") open.selected = Math.min(open.options.length - 1, open.selected + 1)
      else if (data === "\x1b[A" || data === "k") open.selected = Math.max(0, open.selected - 1)
      else if (data === "\x1b") open.finish(undefined)
      return false
    },
    listening: () => (listeners.size > 0 ? Promise.resolve() : new Promise<void>((wake) => void waiting.push(wake))),
    dialogOpen: () => (open !== undefined ? Promise.resolve() : new Promise<void>((wake) => void dialogWaiters.push(wake)))
  }
  return { notices, statuses, editorTexts, confirms, dialogs, terminal, ui }
}
