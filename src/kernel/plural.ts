/** "1 note", "2 notes": a count with its noun, the plural given when it is not the noun and an s. */
export const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`
