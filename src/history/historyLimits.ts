/**
 * Page sizes of the history tools. Kept free of imports so the Pi-facing
 * tool specs can state them without loading Effect at start-up.
 */
export const listLimit = { default: 20, max: 100 } as const
export const searchLimit = { default: 10, max: 50 } as const

/**
 * Code points per read page. A page of wide characters is also cut in bytes
 * (read.ts), so with its frame it stays under the 32 KiB tool bound and its
 * continuation offset is exact.
 */
export const readLimit = { default: 6000, max: 8000 } as const
