/**
 * Page sizes of the history tools. Kept free of imports so the Pi-facing
 * tool specs can state them without loading Effect at start-up.
 */
export const listLimit = { default: 20, max: 100 } as const
export const searchLimit = { default: 10, max: 50 } as const

/**
 * Code points per read page. At most 4 UTF-8 bytes each, the largest page
 * (32,000 bytes) plus its header stays under the 32 KiB tool bound.
 */
export const readLimit = { default: 6000, max: 8000 } as const
