import { Type } from "typebox"
import { listLimit, readLimit } from "../notes/notesLimits.ts"
import { NotesUpdateMaxEdits, ToolName } from "../kernel/protocol.ts"
import type { ToolSpec } from "./toolSpec.ts"

// The boot explains the homes and the protocol: the words here say only what a call needs.
const address = Type.String({ description: "\"plan\", \"a/b\" (this session) or @project/..., @user/..., @agent/..., @model/..." })

const home = Type.String({ description: "session, @project, @user, @agent or @model" })

const cursor = Type.String({ description: "from the previous page" })

export const notesToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.notesWrite,
    label: "Write note",
    description: "Create or replace a note (markdown). Notes survive memory resets.",
    promptSnippet: "create or replace a note; notes survive memory resets",
    parameters: Type.Object({ address, content: Type.String() })
  },
  {
    name: ToolName.notesUpdate,
    label: "Update note",
    description: "Edit a note, all or nothing: each oldText must occur once. Or rename it (rename_to), or retire one no longer true (retire: true, alone).",
    parameters: Type.Object({
      address,
      edits: Type.Optional(Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() }), { maxItems: NotesUpdateMaxEdits })),
      rename_to: Type.Optional(Type.String()),
      retire: Type.Optional(Type.Boolean())
    })
  },
  {
    name: ToolName.notesRead,
    label: "Read note",
    description: `Read a note, ${readLimit.max} characters at a time; the result gives the offset to read on from (negative: from the end).`,
    parameters: Type.Object({
      address,
      offset: Type.Optional(Type.Integer()),
      limit: Type.Optional(Type.Integer({ minimum: 1 }))
    })
  },
  {
    name: ToolName.notesList,
    label: "List notes",
    description: `List notes, newest first (${listLimit.default} a page): all homes or one, by address substring or glob; wastebasket: the retired ones.`,
    parameters: Type.Object({
      home: Type.Optional(home),
      pattern: Type.Optional(Type.String()),
      cursor: Type.Optional(cursor),
      limit: Type.Optional(Type.Integer({ minimum: 1 })),
      wastebasket: Type.Optional(Type.Boolean())
    })
  },
  {
    name: ToolName.notesSearch,
    label: "Search notes",
    description: "Find lines in notes containing query, case-insensitive (regex: true for an RE2 regular expression); each hit gives the offset for notes_read.",
    parameters: Type.Object({
      query: Type.String({ minLength: 1 }),
      regex: Type.Optional(Type.Boolean()),
      home: Type.Optional(home),
      cursor: Type.Optional(cursor),
      limit: Type.Optional(Type.Integer({ minimum: 1 }))
    })
  }
]
