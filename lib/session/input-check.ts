/**
 * The checks of an input path before any work, each failure with its own HygieneError code
 * (and so its own exit code): no such file, a directory, unreadable, empty.
 */
import { access, constants, open, stat } from 'node:fs/promises';
import { HygieneError } from '../errors.ts';

export interface InputCheckOptions {
  /** An empty file is an error (`input_empty`). */
  rejectEmpty?: boolean;
}

export async function checkInputFile(file: string, options: InputCheckOptions = {}): Promise<void> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new HygieneError('input_not_found', `${file}: no such file`, { source: file });
    if (code === 'ENOTDIR') throw new HygieneError('input_not_found', `${file}: ${(error as Error).message}`, { source: file });
    throw new HygieneError('input_unreadable', `${file}: ${(error as Error).message}`, { source: file });
  }
  if (info.isDirectory()) throw new HygieneError('input_is_directory', `${file}: is a directory (give a session file)`, { source: file });
  try {
    await access(file, constants.R_OK);
  } catch {
    throw new HygieneError('input_unreadable', `${file}: permission denied`, { source: file });
  }
  // Open it (without blocking on a FIFO): a socket or a device that cannot be read fails here.
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    await handle.close();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HygieneError('input_unreadable', `${file}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message}`, { source: file });
  }
  if (options.rejectEmpty && info.isFile() && info.size === 0) throw new HygieneError('input_empty', `${file}: empty file`, { source: file });
}

/** Whether a path is a regular file (a session file can be read twice); false for pipes and devices. */
export async function isRegularFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
