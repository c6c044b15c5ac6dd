/**
 * Where a folder pi-context writes really is, against the root it belongs
 * to (the notes root, or the project for in-project notes): a symbolic link
 * on the way may lead out of that root, or to nothing.
 */
export type Placement =
  | { readonly _tag: "Inside" }
  /** `link` is the path, from the root, of the symbolic link that leads out. */
  | { readonly _tag: "Outside"; readonly link: string }
  /** `link` leads to a file or folder that does not exist. */
  | { readonly _tag: "Dangling"; readonly link: string }

export type Misplaced = Exclude<Placement, { readonly _tag: "Inside" }>

export const inside: Placement = { _tag: "Inside" }

/** The sentence of a misplaced folder; `root` names what it belongs to ("the notes root", "the project", "its home"). */
export const describeMisplaced = (placement: Misplaced, root: string): string =>
  placement._tag === "Outside"
    ? `"${placement.link}" is a symbolic link that leads outside ${root}, and pi-context writes nothing outside ${root}`
    : `"${placement.link}" is a symbolic link to a file or folder that does not exist`

/** What to do about it, as a clause. */
export const misplacedAction = (placement: Misplaced): string =>
  placement._tag === "Outside"
    ? `ask the user to replace the link "${placement.link}" with a real folder, or to remove it`
    : `ask the user to remove the link "${placement.link}" or to create what it points to`
