/** Fixed protocol names: other code and users depend on them (see DESIGN.md). */
export const CustomType = {
  resetMarker: "pi-context/reset-marker",
  boot: "pi-context/boot",
  continuation: "pi-context/continuation",
  guidance: "pi-context/guidance",
  warning: "pi-context/warning",
  /** The close-out instruction: hidden, carried by one request, never written to the session. */
  closeOut: "pi-context/close-out",
  state: "pi-context/state",
  /** A report the user asked for (windows view, doctor, trace, a note): shown in the chat, never sent to the model. */
  report: "pi-context/report"
} as const

export const ToolName = {
  wipeMemory: "wipe_memory",
  notesList: "notes_list",
  notesRead: "notes_read",
  notesWrite: "notes_write",
  notesUpdate: "notes_update",
  notesSearch: "notes_search",
  historyWindows: "history_windows",
  historyList: "history_list",
  historySearch: "history_search",
  historyRead: "history_read",
  contextRemaining: "context_remaining"
} as const

/** The tools that read what earlier windows said and did: offered from a session's first reset on. */
export const HistoryToolNames: ReadonlyArray<string> = [ToolName.historyWindows, ToolName.historyList, ToolName.historySearch, ToolName.historyRead]

export const CommandName = {
  wipeMemory: "wipe-memory",
  piContext: "pi-context"
} as const

/** The key under which pi-context reads its settings in Pi's settings files. */
export const SettingsKey = "pi-context"

/** Every tool result is bounded to this many UTF-8 bytes of text. */
export const ToolResultByteLimit = 32 * 1024

/** Edits one `notes_update` call may carry: each is looked up in the whole note, so their number bounds the call's time. */
export const NotesUpdateMaxEdits = 50
