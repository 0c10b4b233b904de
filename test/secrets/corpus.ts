/**
 * The redaction corpora.
 *
 * SECRETS: realistic fakes of each kind an agent transcript leaks, each with the rule id that
 * must replace it. The values are built here from parts and a seeded generator, so that the
 * repository holds no string in a real secret's shape (scanners that block pushes look for
 * those); at run time each has the exact shape its rule matches, and is plainly fake
 * (FAKE/fake/EXAMPLE in it, or the generator's repeating alphabet).
 *
 * FALSE_POSITIVES: ordinary text of the same transcripts (code, hashes, UUIDs, base64 images,
 * signatures, URLs, prose about keys and tokens) in which nothing may be redacted.
 */

/** `n` characters of `alphabet`, from a seeded generator (mulberry32): stable across runs. */
export function pseudo(n: number, seed: number, alphabet = ALNUM): string {
  let state = seed >>> 0;
  let out = '';
  for (let i = 0; i < n; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += alphabet[((t ^ (t >>> 14)) >>> 0) % alphabet.length];
  }
  return out;
}

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const BASE64 = ALNUM + '+/';
const BASE64URL = ALNUM + '-_';
const join = (...parts: string[]): string => parts.join('');

/** One fake secret: the value that must go, the text it sits in, and the rule that must find it. */
export interface SecretCase {
  readonly kind: string;
  /** The secret itself: never in the output. */
  readonly secret: string;
  /** The text a transcript holds it in. */
  readonly text: string;
  /** The text after redaction. */
  readonly redacted: string;
}

function inText(kind: string, secret: string, rule: string, before: string, after = ''): SecretCase {
  return { kind, secret, text: before + secret + after, redacted: `${before}[REDACTED:${rule}]${after}` };
}

const awsKeyId = join('AK', 'IA', 'FAKE', pseudo(12, 1, UPPER_DIGITS));
const awsSecret = join('fAkE', pseudo(36, 2, BASE64));
const githubToken = join('gh', 'p_', 'FAKE', pseudo(32, 3));
const npmToken = join('np', 'm_', 'fake', pseudo(32, 4));
const anthropicKey = join('sk-', 'ant-', 'api03-', 'FAKE', pseudo(89, 5, BASE64URL), 'AA');
const openaiKey = join('sk-', 'proj-', 'FAKE', pseudo(70, 6, BASE64URL), 'T3Blbk', 'FJ', pseudo(74, 7, BASE64URL));
const googleKey = join('AI', 'za', 'SyFAKE', pseudo(29, 8, BASE64URL));
const slackWebhook = join('https://hooks.', 'slack.com/services/', 'T0FAKE', pseudo(5, 9, UPPER_DIGITS), '/B0FAKE', pseudo(5, 10, UPPER_DIGITS), '/', pseudo(24, 11));
const slackToken = join('xo', 'xb-', '1234567890', '-', '0987654321', '-', 'FAKE', pseudo(20, 12));
const privateKeyBody = join('MII', 'EFAKE', pseudo(900, 13, BASE64)).replace(/(.{64})/g, '$1\n');
const privateKey = join('-----BEGIN RSA ', 'PRIVATE KEY-----\n', privateKeyBody, '\n-----END RSA ', 'PRIVATE KEY-----');
const jwt = join('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.', 'eyJzdWIiOiJmYWtlLXVzZXIiLCJuYW1lIjoiRkFLRSJ9', '.', pseudo(43, 14, BASE64URL));
const basicAuthPassword = join('Xk9', 'fake', pseudo(10, 15));
const basicAuthUrl = join('https://deploy-bot:', basicAuthPassword, '@git.example.com');
const stripeKey = join('sk', '_test_', 'FAKE', pseudo(30, 16));
const dbPassword = join('Db', 'fake', pseudo(12, 17));
const sessionSecret = join('q9', 'FAKE', pseudo(26, 18));

/** Redacted as the `[REDACTED:<rule>]` named, by the rule named. */
export const SECRETS: readonly SecretCase[] = [
  inText('aws access key id', awsKeyId, 'aws', 'export AWS_ACCESS_KEY_ID=', '\n'),
  inText('aws secret access key', awsSecret, 'aws', 'AWS_SECRET_ACCESS_KEY=', '\n'),
  inText('github token', githubToken, 'github', 'git clone with token ', ' failed'),
  inText('npm token', npmToken, 'npm', '//registry.npmjs.org/:_authToken=', '\n'),
  inText('anthropic key', anthropicKey, 'anthropic', 'I set ANTHROPIC_KEY to ', ', does it work?'),
  inText('openai key', openaiKey, 'openai', 'client = OpenAI(api_key="', '")'),
  // secretlint has no rule for Google API keys: the generic detector takes the assignment.
  inText('google api key', googleKey, 'generic-assignment', 'GOOGLE_API_KEY=', '\n'),
  inText('slack webhook', slackWebhook, 'slack', 'curl -X POST ', ' -d @msg.json'),
  inText('slack token', slackToken, 'slack', 'SLACK_BOT=', '\n'),
  inText('private key block', privateKey, 'privatekey', 'cat ~/.ssh/deploy\n', '\n'),
  // secretlint has no rule for JWTs: the generic detector takes the assignment.
  inText('jwt', jwt, 'generic-assignment', '{"access_token": "', '", "expires_in": 3600}'),
  { kind: 'basic-auth url', secret: basicAuthPassword, text: `git push ${basicAuthUrl}/org/repo.git`, redacted: 'git push [REDACTED:basicauth]/org/repo.git' },
  inText('stripe key', stripeKey, 'stripe', 'STRIPE_SECRET_KEY=', '\n'),
];

/** A `.env` file as `cat .env` shows it in a tool result, and what must be left of it. */
export const ENV_DUMP = {
  text: [
    '# production',
    'NODE_ENV=production',
    `AWS_ACCESS_KEY_ID=${awsKeyId}`,
    `AWS_SECRET_ACCESS_KEY=${awsSecret}`,
    `DATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app`,
    `STRIPE_SECRET_KEY=${stripeKey}`,
    `SESSION_SECRET=${sessionSecret}`,
    `GITHUB_TOKEN=${githubToken}`,
    'PORT=8080',
    'LOG_LEVEL=debug',
  ].join('\n'),
  secrets: [awsKeyId, awsSecret, dbPassword, stripeKey, sessionSecret, githubToken],
  kept: ['NODE_ENV=production', 'PORT=8080', 'LOG_LEVEL=debug', 'AWS_SECRET_ACCESS_KEY=[REDACTED:aws]', 'SESSION_SECRET=[REDACTED:generic-assignment]'],
};

/** A Google key outside an assignment: only a user pattern finds it. */
export const BARE_GOOGLE_KEY = { secret: googleKey, text: `the maps key is ${googleKey} for now`, pattern: { name: 'google-api-key', pattern: '/AIza[0-9A-Za-z_-]{35}/' } };

/** An Anthropic key as a JSON writer may escape it: `\u002d` for `-`, `\u0041` for `A`. */
export const ESCAPED_KEY = {
  secret: anthropicKey,
  /** The JSON string literal (quotes included) as it stands in the input line. */
  json: '"key: ' + anthropicKey.replace(/-/g, '\\u002d').replace(/^s/, '\\u0073') + ' ok"',
};

const sha256 = pseudo(64, 20, '0123456789abcdef');
const gitSha = pseudo(40, 21, '0123456789abcdef');
const uuid = [pseudo(8, 22, '0123456789abcdef'), pseudo(4, 23, '0123456789abcdef'), '4' + pseudo(3, 24, '0123456789abcdef'), 'a' + pseudo(3, 25, '0123456789abcdef'), pseudo(12, 26, '0123456789abcdef')].join('-');
const pngBase64 = 'iVBORw0KGgoAAAANSUhEUgAA' + pseudo(2400, 27, BASE64) + '==';
export const PNG_BASE64 = pngBase64;
/** A thinking signature's shape (base64 of an opaque blob). */
export const SIGNATURE = 'Eq' + pseudo(600, 28, BASE64) + '==';

export const FALSE_POSITIVES: readonly string[] = [
  // code
  "const apiKey = process.env.ANTHROPIC_API_KEY;\nif (!apiKey) throw new Error('missing API key');\nconst token = await getToken({ audience: 'api' });",
  'def connect():\n    password = os.environ["DB_PASSWORD"]\n    secret_key = settings.SECRET_KEY\n    return psycopg.connect(password=password)',
  'export interface Credentials { accessKeyId: string; secretAccessKey: string; sessionToken?: string }',
  'for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === "authorization") redact(value);',
  'token_count = len(tokenizer.encode(text))  # max_tokens=4096',
  'const password_hash = await bcrypt.hash(password, 12);',
  'KEY_LENGTH=32\nTOKEN_TTL_SECONDS=3600\nPASSWORD_MIN_LENGTH=12',
  '{"keyboard":"us","monkeyPatch":false,"tokenizer":"cl100k_base","secretName":"prod/db"}',
  // hashes
  `sha256: ${sha256}`,
  `commit ${gitSha}\nAuthor: Dev <dev@example.com>`,
  `"integrity": "sha512-${pseudo(86, 29, BASE64)}=="`,
  `cache_key=${sha256}`,
  `api_key_sha256=${sha256}`,
  // UUIDs
  `request ${uuid} failed`,
  `{"id": "${uuid}", "session_token_id": "${uuid}"}`,
  // base64 images and signatures
  `data:image/png;base64,${pngBase64}`,
  `"signature": "${SIGNATURE}"`,
  '-----BEGIN PGP SIGNATURE-----\n' + pseudo(300, 30, BASE64).replace(/(.{64})/g, '$1\n') + '\n-----END PGP SIGNATURE-----',
  '-----BEGIN CERTIFICATE-----\nMII' + pseudo(400, 31, BASE64).replace(/(.{64})/g, '$1\n') + '\n-----END CERTIFICATE-----',
  // placeholders and documentation
  'Set ANTHROPIC_API_KEY=sk-ant-... in your shell, or export OPENAI_API_KEY=<your key>.',
  'curl https://${USER}:${PASSWORD}@example.com/api',
  'https://github.com/org/repo/blob/main/src/secrets.ts#L10',
  'postgres://localhost:5432/app',
  'The API key is stored in the keychain; rotate the token every 90 days and never commit secrets.',
  'ssh-keygen -t ed25519 -C "deploy" -f ~/.ssh/deploy_key',
];
