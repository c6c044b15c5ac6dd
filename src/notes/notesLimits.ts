/**
 * Page sizes of the notes tools. Kept free of imports so the Pi-facing tool
 * specs can state them without loading Effect at start-up.
 */
export const listLimit = { default: 50, max: 200 } as const
export const searchLimit = { default: 20, max: 100 } as const

/** Code points per `notes_read` page: at most 4 bytes each, so a page stays under the tool bound. */
export const readLimit = { default: 7_500, max: 7_500 } as const
