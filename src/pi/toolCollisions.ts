/** Where Pi says a tool comes from (its `sourceInfo`). */
export interface ToolSource {
  readonly path: string
  readonly source: string
}

/** A tool as Pi lists it in `pi.getAllTools()`: one per name, the one Pi runs. */
export interface ListedTool {
  readonly name: string
  readonly parameters: unknown
  readonly sourceInfo?: ToolSource
}

/** Tool names whose tool Pi runs is another extension's, by that extension. */
export interface Collision {
  readonly owner: string
  readonly names: ReadonlyArray<string>
}

/**
 * The names pi-context registered that Pi resolves to another extension's
 * tool. Pi keeps one tool per name (the first extension loaded wins), so the
 * tool listed under a name is pi-context's only when it carries the very
 * parameter schema pi-context registered.
 */
export const collisions = (
  ours: ReadonlyArray<{ readonly name: string; readonly parameters: unknown }>,
  listed: ReadonlyArray<ListedTool>
): Array<Collision> => {
  const byName = new Map(listed.map((tool) => [tool.name, tool]))
  const groups = new Map<string, Array<string>>()
  for (const tool of ours) {
    const winner = byName.get(tool.name)
    if (winner === undefined || winner.parameters === tool.parameters) continue
    const owner = describeSource(winner.sourceInfo)
    groups.set(owner, [...(groups.get(owner) ?? []), tool.name])
  }
  return [...groups].map(([owner, names]) => ({ owner, names }))
}

/** An extension named the way a user recognises it: its package, or its file, never a full path. */
export const describeSource = (info: ToolSource | undefined): string => {
  if (info === undefined) return "an unknown extension"
  // A package source (npm:…, git:…) is the name the user installed it by.
  if (/^(npm|git|https?):/.test(info.source)) return info.source
  const parts = info.path.split(/[\\/]/).filter((part) => part.length > 0)
  const file = parts.at(-1) ?? info.path
  const name = /^index\.[cm]?[jt]s$/.test(file) && parts.length > 1 ? parts.at(-2)! : file
  return info.source === "" || info.source === name ? name : `${name} (${info.source})`
}

/** The start-up notice: which extension owns which of pi-context's tool names. */
export const collisionNotice = (found: ReadonlyArray<Collision>): string =>
  `pi-context: another extension registers tools under pi-context's names, and Pi runs that extension's version: ` +
  found.map((c) => `${c.names.join(", ")} ${c.names.length === 1 ? "belongs" : "belong"} to ${c.owner}`).join("; ") +
  `. pi-context's own ${found.length === 1 && found[0]!.names.length === 1 ? "tool of that name is" : "tools of those names are"} unavailable, ` +
  "so notes and resets may not work as pi-context describes them. Remove one of the two extensions, or turn pi-context off with /pi-context off."
