/** `transcript-hygiene sessions DB`: the sessions of an OpenClaw database, one a line. */
import { EXIT } from '../exit-codes.ts';
import { listDatabaseSessions, type DatabaseSessionInfo } from '../session/db-sessions.ts';
import { openOpenClawDatabase } from '../session/openclaw-db.ts';
import { UsageError, checkInput, parse, positiveIntegerFlag, type Io } from './args.ts';
import { SESSIONS_HELP } from './help.ts';

function table(rows: readonly DatabaseSessionInfo[]): string {
  const header = ['KEY', 'SESSION', 'GENERATION', 'MODEL', 'MESSAGES', 'UPDATED'];
  const cells = rows.map((row) => [
    `${row.key ?? '-'}${row.current ? ' *' : ''}`,
    row.sessionId,
    row.reason ?? '-',
    row.model ?? '-',
    String(row.messages),
    new Date(row.updatedAt).toISOString(),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => cell[column]!.length)));
  return [header, ...cells].map((cell) => cell.map((text, column) => (column === cell.length - 1 ? text : text.padEnd(widths[column]!))).join('  ')).join('\n') + '\n';
}

export async function runSessions(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    json: { type: 'boolean' },
    'busy-timeout': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(SESSIONS_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1 || positionals[0] === '-') throw new UsageError('sessions takes one database file');
  const file = (await checkInput(positionals[0], { rejectEmpty: false }))!;
  const db = await openOpenClawDatabase(file, { busyTimeoutMs: positiveIntegerFlag('busy-timeout', values['busy-timeout']) });
  try {
    const sessions = await listDatabaseSessions(db);
    io.stdout.write(values.json ? JSON.stringify(sessions, null, 2) + '\n' : table(sessions));
  } finally {
    db.close();
  }
  return EXIT.ok;
}
