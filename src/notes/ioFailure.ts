/**
 * What a failed file-system call means for a model: whether trying again
 * can help, and what to do instead. Keyed by the errno code; never names a
 * path, since the message is shown as it is.
 */
export interface IoFailure {
  readonly permanent: boolean
  /** What happened, as a clause: "the disk is full". */
  readonly explanation: string
  /** What to do, as a clause: "ask the user to free disk space". */
  readonly action: string
}

const askToFixRoot = "ask the user to fix the notes folder's permissions or to set another notes root (pi-context.notesRoot)"

const permanent = (explanation: string, action: string): IoFailure => ({ permanent: true, explanation, action })
const transient = (explanation: string): IoFailure => ({ permanent: false, explanation, action: "try again; if it keeps failing, tell the user" })

const known: Readonly<Record<string, IoFailure>> = {
  ENAMETOOLONG: permanent("the file system refuses a name or path this long", "use a shorter address (shorter names or fewer folders)"),
  EACCES: permanent("permission denied", askToFixRoot),
  EPERM: permanent("the operation is not permitted", askToFixRoot),
  EROFS: permanent("the file system is read-only", askToFixRoot),
  ENOSPC: permanent("the disk is full", "ask the user to free disk space"),
  EDQUOT: permanent("the disk quota is used up", "ask the user to free space or raise the quota"),
  EFBIG: permanent("the file system refuses a file this large", "split the note into smaller notes"),
  EISDIR: permanent("a folder stands where the note's file should be", "choose another address, or ask the user to move that folder"),
  ENOTDIR: permanent("a file stands where a folder of the address should be", "choose another address, or ask the user to move that file"),
  ELOOP: permanent("a symbolic link loops", "ask the user to fix the link in the notes folder"),
  EMLINK: permanent("the folder holds too many entries", "write the note into another folder"),
  EMFILE: transient("too many files are open in this process"),
  ENFILE: transient("too many files are open on this machine"),
  EBUSY: transient("the file is busy"),
  EAGAIN: transient("the file system asked to try again"),
  EINTR: transient("the call was interrupted"),
  ETIMEDOUT: transient("the file system timed out"),
  ESTALE: transient("a network file system dropped the file handle"),
  EIO: transient("the disk reported an input/output error"),
  ENOENT: transient("a file or folder disappeared while the note was being accessed")
}

/** The meaning of errno `code` (undefined when the failure carried none). */
export const classifyIoFailure = (code: string | undefined): IoFailure =>
  (code === undefined ? undefined : known[code]) ?? transient("the file system reported an unexpected error")
