import { Type } from "typebox"
import { listLimit, readLimit, searchLimit } from "../domain/notes/notesLimits.ts"
import { NotesUpdateMaxEdits, ToolName } from "../domain/protocol.ts"
import type { ToolSpec } from "./toolSpec.ts"

const address = Type.String({
  description: "Note address. No prefix = this session (\"plan\", \"a/b\"); or @project/..., @user/..., @agent/..., @model/... . \".md\" is implied."
})

const home = Type.String({ description: "Only this home: session, @project, @user, @agent or @model." })

const cursor = Type.String({ description: "The cursor from the previous page's result, to get the next page." })

export const notesToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.notesWrite,
    label: "Write note",
    description: "Create a note or replace its whole body with `content` (markdown). The result says whether the note was created or replaced. " +
      "Notes survive a memory reset; notes up to 1 MB.",
    promptSnippet: "notes_write: create or replace a note (survives memory resets)",
    promptGuidelines: [
      "Keep your working checkpoint (goal, decisions, open questions, next step) in this session's notes, and keep each home's MAP.md listing its durable notes."
    ],
    parameters: Type.Object({
      address,
      content: Type.String({ description: "The full markdown body of the note." })
    })
  },
  {
    name: ToolName.notesUpdate,
    label: "Update note",
    description: "Apply exact-text edits to a note, all or nothing: each oldText must occur exactly once in the note as it is now " +
      "(an error names the edit and the lines of ambiguous matches). Optionally rename or move the note with rename_to, alone or with edits. " +
      "retire: true (alone) retires a note that is no longer true: it leaves the boot and notes_list for the wastebasket.",
    promptSnippet: "notes_update: exact-text edits and/or rename of a note, all or nothing",
    parameters: Type.Object({
      address,
      edits: Type.Optional(Type.Array(
        Type.Object({
          oldText: Type.String({ description: "Text to replace; must occur exactly once in the note." }),
          newText: Type.String({ description: "Replacement text." })
        }),
        { maxItems: NotesUpdateMaxEdits, description: `Edits (at most ${NotesUpdateMaxEdits}), matched against the note before any of them is applied.` }
      )),
      rename_to: Type.Optional(Type.String({ description: "New address for the note; must not exist yet." })),
      retire: Type.Optional(Type.Boolean({
        description: "Retire the note instead of editing it (alone, without edits): it leaves the boot and notes_list for the wastebasket, and stays in the history."
      }))
    })
  },
  {
    name: ToolName.notesRead,
    label: "Read note",
    description: "Read a window of a note's body, counted in characters (code points). The result gives the total length and the offset to continue from. " +
      "A negative offset counts from the end.",
    promptSnippet: "notes_read: read a note (pageable by offset)",
    parameters: Type.Object({
      address,
      offset: Type.Optional(Type.Integer({ description: "First character to return (default 0; negative = from the end)." })),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: `Characters to return (default and maximum ${readLimit.max}).` }))
    })
  },
  {
    name: ToolName.notesList,
    label: "List notes",
    description: "List notes most recent first, with title, size and age, across all five homes or one. Pageable with cursor; " +
      "says which homes could not be read.",
    promptSnippet: "notes_list: list notes, most recent first (filter by home or pattern)",
    parameters: Type.Object({
      home: Type.Optional(home),
      pattern: Type.Optional(Type.String({
        description: "Filter on the address: a substring, or a glob with * (within a folder), ** (across folders) and ?."
      })),
      cursor: Type.Optional(cursor),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: `Notes per page (default ${listLimit.default}, maximum ${listLimit.max}).` })),
      wastebasket: Type.Optional(Type.Boolean({ description: "List the retired notes (notes_update with retire: true) instead." }))
    })
  },
  {
    name: ToolName.notesSearch,
    label: "Search notes",
    description: "Find lines in note bodies containing `query` (case-insensitive), or matching it as a regular expression with regex: true " +
      "(RE2 syntax, line by line: no backreferences or lookaround). " +
      "Each hit gives the address, line number and the offset to pass to notes_read. Pageable with cursor.",
    promptSnippet: "notes_search: find lines in notes by text or regex",
    parameters: Type.Object({
      query: Type.String({ minLength: 1, description: "Text to find, or a regular expression (RE2) when regex is true." }),
      regex: Type.Optional(Type.Boolean({ description: "Treat query as a regular expression (case-insensitive)." })),
      home: Type.Optional(home),
      cursor: Type.Optional(cursor),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: `Hits per page (default ${searchLimit.default}, maximum ${searchLimit.max}).` }))
    })
  }
]
