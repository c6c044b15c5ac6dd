import type { ExtensionUIContext, TerminalInputHandler } from "@earendil-works/pi-coding-agent"

export interface Notice {
  readonly message: string
  readonly level: "info" | "warning" | "error"
}

export interface UiCapture {
  readonly notices: Array<Notice>
  /** Every status text set under each key, in order (undefined = cleared). */
  readonly statuses: Array<{ readonly key: string; readonly text: string | undefined }>
  /** Every text an extension put back into the editor. */
  readonly editorTexts: Array<string>
  /** Every confirm dialog shown, in order. */
  readonly confirms: Array<{ readonly title: string; readonly message: string }>
  /** Raw terminal input, as interactive mode hands it to extensions before the editor. */
  readonly terminal: {
    /** Sends `data` to the listeners; true when one consumed it. */
    readonly press: (data: string) => boolean
    /** Resolves once some extension listens to terminal input. */
    readonly listening: () => Promise<void>
  }
  readonly ui: ExtensionUIContext
}

/** A UI context that records notices, status lines and confirms; a confirm answers as `confirm` says (default "no"), the editor as `editor` says, other dialogs nothing. */
export const captureUi = (
  editor: (title: string, prefill: string | undefined) => string | undefined = () => undefined,
  confirm: (title: string, message: string) => boolean = () => false
): UiCapture => {
  const notices: Array<Notice> = []
  const statuses: Array<{ key: string; text: string | undefined }> = []
  const editorTexts: Array<string> = []
  const confirms: Array<{ readonly title: string; readonly message: string }> = []
  const listeners = new Set<TerminalInputHandler>()
  const waiting: Array<() => void> = []
  const known: Partial<ExtensionUIContext> = {
    notify: (message, level) => void notices.push({ message, level: level ?? "info" }),
    setStatus: (key, text) => void statuses.push({ key, text }),
    select: async () => undefined,
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
    press: (data: string) => [...listeners].some((listener) => listener(data)?.consume === true),
    listening: () => (listeners.size > 0 ? Promise.resolve() : new Promise<void>((wake) => void waiting.push(wake)))
  }
  return { notices, statuses, editorTexts, confirms, terminal, ui }
}
