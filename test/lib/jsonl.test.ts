import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import { writtenLines } from '../helpers/written-lines.ts';
import { JsonlLineParser, JsonlWriter, LineSplitter, parseJsonl, patchedLineOf, readJsonlMessages, stringifyJsonl, stringifyMessage, TURN_BYTES } from '../../lib/jsonl.ts';
import { recordEdits, removeBlock, setBlockField, setField } from '../../lib/message-edits.ts';
import { HygieneError } from '../../lib/errors.ts';
import { OUTPUT_HIGH_WATER_MARK } from '../../lib/atomic-write.ts';
import type { Message } from '../../lib/types.ts';

/** Feeds text in chunks of `size` bytes, so line and UTF-8 boundaries fall inside chunks. */
function chunked(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

async function readAll(text: string, size = 7): Promise<Message[]> {
  const out: Message[] = [];
  for await (const batch of readJsonlMessages(chunked(text, size), { source: 'in.jsonl' })) out.push(...batch);
  return out;
}

/** The lines of `text` fed to a LineSplitter in `size`-byte chunks of one buffer, overwritten after each push. */
function splitThroughOneBuffer(text: string, size: number): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const shared = Buffer.alloc(size);
  const splitter = new LineSplitter();
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    const n = bytes.copy(shared, 0, at, at + size);
    lines.push(...splitter.push(shared.subarray(0, n)));
    shared.fill(0x41);
  }
  lines.push(...splitter.end());
  return lines;
}

describe('LineSplitter', () => {
  test('splits LF and CRLF, keeps the tail, and decodes UTF-8 split across chunks', () => {
    const splitter = new LineSplitter();
    const lines: string[] = [];
    for (const chunk of chunked('a\r\nzé\n€x', 1)) lines.push(...splitter.push(chunk));
    lines.push(...splitter.end());
    assert.deepEqual(lines, ['a', 'zé', '€x']);
  });

  test('takes what it needs from each chunk: a caller may overwrite the chunk before the next push', () => {
    // lib/file-chunks.ts reads every chunk into the same buffer.
    const text = 'first line\r\n{"k":"ünï"}\nlong line without an end in this chunk' + '-'.repeat(40) + '\r\nz';
    for (const size of [1, 2, 5, 16, 64]) assert.deepEqual(splitThroughOneBuffer(text, size), text.split(/\r?\n/), `chunks of ${size}`);
  });

  test('ASCII chunks and chunks with other bytes: the same lines, and bytes that are not UTF-8 counted on their own line', () => {
    const ascii = Buffer.from('one\r\ntwo\nthree\r\n', 'latin1');
    const mixed = Buffer.concat([Buffer.from('fo'), Buffer.from([0xff]), Buffer.from('ur\nfivé\r\nsix\n', 'utf8')]);
    const splitter = new LineSplitter();
    const lines = [...splitter.push(ascii), ...splitter.push(mixed), ...splitter.push(Buffer.from('seven\r\n')), ...splitter.end()];
    assert.deepEqual(lines, ['one', 'two', 'three', 'fo\uFFFDur', 'fivé', 'six', 'seven']);
    assert.deepEqual(splitter.invalidUtf8.summary(), { lines: 1, sequences: 1, lineNumbers: [4] });
  });

  test('a line over 1 MiB, cut anywhere (inside UTF-8 sequences, between CR and LF), comes out whole', () => {
    const long = 'é€'.repeat(300_000) + 'x';
    const text = `short\r\n${long}\r\n${long}`;
    for (const size of [65_536, 99_999]) {
      const lines = splitThroughOneBuffer(text, size);
      assert.equal(lines.length, 3, `chunks of ${size}`);
      assert.equal(lines[0], 'short');
      assert.ok(lines[1] === long && lines[2] === long, `chunks of ${size}: long lines decoded whole`);
    }
  });
});

describe('readJsonlMessages', () => {
  const session = [
    '{"type":"session","version":3,"id":"s1","timestamp":"2026-07-20T09:00:00.000Z","cwd":"/"}',
    '{"type":"model_change","id":"e1","parentId":null,"provider":"anthropic"}',
    '{"type":"message","id":"e2","parentId":"e1","message":{"role":"user","content":"héllo"}}',
    '',
    '{"role":"assistant","content":[{"type":"text","text":"bare"}]}',
    '{"custom":true}',
  ].join('\r\n');

  for (const size of [1, 3, 7, 1024]) {
    test(`session entries and bare messages in file order (chunks of ${size} bytes)`, async () => {
      assert.deepEqual(await readAll(session, size), [
        { role: 'user', content: 'héllo' },
        { role: 'assistant', content: [{ type: 'text', text: 'bare' }] },
        { custom: true },
      ]);
    });
  }

  test('batches are cut inside a chunk, and every line is read before the chunk\'s memory is reused', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify({ role: 'user', content: `${i} ${'x'.repeat(1000 + (i % 7))}` }));
    const bytes = Buffer.from(lines.join('\n') + '\n', 'utf8');
    const shared = Buffer.alloc(256 * 1024);
    // One buffer for every chunk, overwritten when the next is asked for (as lib/file-chunks.ts does).
    async function* reused(): AsyncGenerator<Buffer> {
      for (let at = 0; at < bytes.length; at += shared.length) {
        const n = bytes.copy(shared, 0, at, at + shared.length);
        yield shared.subarray(0, n);
        shared.fill(0x41);
      }
    }
    const batches: Message[][] = [];
    for await (const batch of readJsonlMessages(reused())) batches.push(batch);
    assert.deepEqual(batches.flat(), lines.map((line) => JSON.parse(line)));
    assert.ok(batches.length >= 4, `${batches.length} batches from 2 chunks of 256 KiB`);
    assert.ok(batches.every((batch) => batch.length <= 130), 'no batch holds a whole chunk');
  });

  test('drops a leading byte-order mark', async () => {
    assert.deepEqual(await readAll('\uFEFF{"role":"user","content":"x"}\n'), [{ role: 'user', content: 'x' }]);
  });

  test('counts skipped entries with their line', async () => {
    const skipped: Array<[string, number]> = [];
    for await (const _ of readJsonlMessages([session], { onSkippedEntry: (type, line) => skipped.push([type, line]) })) void _;
    assert.deepEqual(skipped, [['session', 1], ['model_change', 2]]);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['not JSON', '{"role":"user","content":"a"}\n{"role":\n', /^in\.jsonl:2: not valid JSON/],
    ['a number', '{"role":"user","content":"a"}\n\n42\n', /^in\.jsonl:3: expected a JSON object, got a number$/],
    ['null', 'null\n', /^in\.jsonl:1: expected a JSON object, got null$/],
    ['an array', '[1]\n', /^in\.jsonl:1: expected a JSON object, got an array$/],
    ['a message entry without a message', '{"type":"message","id":"x"}\n', /^in\.jsonl:1: a "message" entry without a message object$/],
    ['a torn last line', '{"role":"user","content":"a"}\n{"role":"us', /^in\.jsonl:2: not valid JSON/],
  ];
  for (const [name, text, pattern] of bad) {
    test(`a line that is ${name} stops the read with the file and line`, async () => {
      await assert.rejects(readAll(text), (error: unknown) => {
        assert.ok(error instanceof HygieneError);
        assert.equal(error.code, 'malformed_line');
        assert.equal(error.source, 'in.jsonl');
        assert.match(error.message, pattern);
        assert.ok(!error.message.includes('\n'), 'one line');
        return true;
      });
    });
  }
});

describe('raw passthrough', () => {
  test('an untouched message is written as its original line; a replaced one is stringified', () => {
    const parser = new JsonlLineParser();
    const original = '{ "role" : "user", "content" : "spaced" }';
    const message = parser.parse(original)!;
    assert.equal(stringifyMessage(message), original + '\n');
    const copy = { ...message, content: 'changed' };
    assert.equal(stringifyMessage(copy), '{"role":"user","content":"changed"}\n');
  });

  test('a message entry keeps the message text as its raw line (no stringify for untouched messages)', () => {
    const parser = new JsonlLineParser();
    const message = parser.parse('{"type":"message","id":"e1","parentId":null,"message":{ "role" : "user", "content" : "x" }}')!;
    assert.deepEqual(message, { role: 'user', content: 'x' });
    assert.equal(stringifyMessage(message), '{ "role" : "user", "content" : "x" }\n');
  });

  const fallbacks: Array<[string, string, unknown]> = [
    ['a key after the message', '{"type":"message","id":"e","message":{"role":"user","content":"x"},"appendMode":"side"}', { role: 'user', content: 'x' }],
    ['"message" nested inside an earlier value', '{"type":"message","meta":{"message":{"role":"no"}},"message":{"role":"user","content":"y"}}', { role: 'user', content: 'y' }],
    ['a message that is not an object', '{"type":"message","message":"text"}', undefined],
  ];
  for (const [name, line, expected] of fallbacks) {
    test(`message entry with ${name} falls back to a full parse`, () => {
      const parser = new JsonlLineParser();
      if (expected === undefined) {
        assert.throws(() => parser.parse(line), /without a message object/);
        return;
      }
      const message = parser.parse(line)!;
      assert.deepEqual(message, expected);
      assert.equal(stringifyMessage(message), JSON.stringify(expected) + '\n');
    });
  }
});

describe('stream forms', () => {
  test('parseJsonl and stringifyJsonl round-trip through streams', async () => {
    const lines = ['{"role":"user","content":"a"}', '{"type":"message","message":{"role":"assistant","content":[]}}', '{"role":"user","content":"b"}'];
    let out = '';
    await pipeline(
      Readable.from(chunked(lines.join('\n') + '\n', 5)),
      parseJsonl(),
      stringifyJsonl(),
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          out += chunk.toString();
          callback();
        },
      }),
    );
    assert.equal(out, ['{"role":"user","content":"a"}', '{"role":"assistant","content":[]}', '{"role":"user","content":"b"}'].join('\n') + '\n');
  });

  test('parseJsonl reports a bad line as a stream error', async () => {
    await assert.rejects(
      pipeline(Readable.from(['{"role":"user"}\nnope\n']), parseJsonl({ source: 'x.jsonl' }), new Writable({ objectMode: true, write: (_c, _e, cb) => cb() })),
      /x\.jsonl:2: not valid JSON/,
    );
  });

  test('JsonlWriter waits for drain when the destination is slow', async () => {
    const written: string[] = [];
    const slow = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString());
        setTimeout(callback, 1);
      },
    });
    const writer = new JsonlWriter(slow);
    const big = 'x'.repeat(70 * 1024);
    writer.write({ role: 'user', content: big });
    await writer.drain();
    writer.write({ role: 'user', content: 'tail' });
    await writer.flush();
    assert.equal(written.join(''), JSON.stringify({ role: 'user', content: big }) + '\n' + '{"role":"user","content":"tail"}\n');
  });

  test('JsonlWriter lets the destination finish its writes while the caller works, before the destination is full', async () => {
    // Write callbacks that need the event loop, as a file stream's do; the high-water mark is never reached.
    const completed: number[] = [];
    const destination = new Writable({
      highWaterMark: 64 << 20,
      write(chunk: Buffer, _encoding, callback) {
        setImmediate(() => {
          completed.push(chunk.length);
          callback();
        });
      },
    });
    const writer = new JsonlWriter(destination);
    const line = { role: 'user', content: 'x'.repeat(10 * 1024) };
    const sent = Math.ceil((2 * TURN_BYTES) / (10 * 1024));
    for (let i = 1; i <= sent; i++) {
      writer.write(line);
      if (i % 10 === 0) await writer.drain();
    }
    // A caller that never waits on anything else: only drain() turned the loop.
    assert.ok(completed.length > 0, 'no write finished while the caller was sending');
    await writer.flush();
    destination.end();
    await finished(destination);
    assert.equal(completed.reduce((sum, bytes) => sum + bytes, 0), sent * (JSON.stringify(line).length + 1));
  });
});

describe('the writer\'s chunks', () => {
  // 80,000 lines of 60-400 bytes, each naming its number: about 19 MB, so 150 chunks of 128 KiB.
  const messages = Array.from({ length: 80_000 }, (_, i) => ({ role: 'user', content: `line ${i} ${'é語'.repeat(i % 57)}${'x'.repeat((i * 7919) % 300)}` }));
  const expected = messages.map((message) => JSON.stringify(message) + '\n').join('');

  async function writeAll(writer: JsonlWriter): Promise<void> {
    // A drain every 100 messages, as the pipeline does between input batches: chunks are refilled while earlier ones are still being written.
    for (let i = 0; i < messages.length; i++) {
      writer.write(messages[i]!);
      if (i % 100 === 99) await writer.drain();
    }
    await writer.flush();
  }

  test('a file stream gets its written chunks back to fill again, and the file is byte for byte what was written', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'th-writer-'));
    try {
      const file = path.join(dir, 'out.jsonl');
      const output = createWriteStream(file, { highWaterMark: OUTPUT_HIGH_WATER_MARK });
      const writer = new JsonlWriter(output);
      await writeAll(writer);
      output.end();
      await finished(output);
      assert.equal(await readFile(file, 'utf8'), expected);
      const chunks = Buffer.byteLength(expected) / (128 * 1024);
      // At most what the stream can hold in flight (its high-water mark in chunks), the one that crosses it, and the one being filled.
      const bound = Math.ceil(OUTPUT_HIGH_WATER_MARK / (128 * 1024)) + 2;
      assert.ok(chunks > 2 * bound, `${chunks} chunks written`);
      assert.ok(writer.chunksAllocated <= bound, `${writer.chunksAllocated} chunks allocated for ${Math.ceil(chunks)} written`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a destination that keeps what it is given gets a new chunk for every write', async () => {
    // Keeps the very buffers it is handed (no copy), as a PassThrough's reader may: a reused chunk would change them.
    const kept: Buffer[] = [];
    const keeper = new Writable({
      highWaterMark: 1 << 20,
      write(chunk: Buffer, _encoding, callback) {
        kept.push(chunk);
        setImmediate(callback);
      },
    });
    const writer = new JsonlWriter(keeper);
    await writeAll(writer);
    keeper.end();
    await finished(keeper);
    assert.equal(Buffer.concat(kept).toString('utf8'), expected);
    assert.equal(writer.chunksAllocated, kept.length + 1);
  });
});

describe('the writer and recorded edits', () => {
  const parse = (line: string) => new JsonlLineParser().parse(line)!;

  test('JsonlWriter writes patched lines as their pieces: short and long lines, multi-byte text, in order', async () => {
    const messages: Message[] = [];
    // Lines past a write chunk (written as text on their own) between short ones; text of 1-, 2-, 3- and 4-byte UTF-8.
    for (const size of [10, 50_000, 10, 200_000, 3]) {
      const text = 'a é 語 😀 '.repeat(size);
      const original = parse(JSON.stringify({ role: 'toolResult', toolCallId: 'call-1', content: [{ type: 'text', text }], details: { size } }));
      const { details: _details, ...rest } = original;
      messages.push(recordEdits(original, { ...rest, toolCallId: 'call1' }, [setField('details', { size }, undefined), setField('toolCallId', 'call-1', 'call1')]), original);
    }
    const written = await writtenLines(messages);
    assert.ok(written.writes > 2, 'several writes');
    assert.equal(written.text, messages.map((message) => JSON.stringify(message) + '\n').join(''));
  });

  test('set fields are patched into the original line, keeping the rest byte for byte', () => {
    const line = '{"role":"toolResult","toolCallId":"a-1","content":[{"type":"text","text":"x  y"}],"call_id":"a-1"}';
    const original = parse(line);
    const copy = recordEdits(original, { ...original, toolCallId: 'a1', call_id: 'a1' }, [setField('toolCallId', 'a-1', 'a1'), setField('call_id', 'a-1', 'a1')]);
    assert.equal(patchedLineOf(copy), '{"role":"toolResult","toolCallId":"a1","content":[{"type":"text","text":"x  y"}],"call_id":"a1"}');
    assert.equal(stringifyMessage(copy), patchedLineOf(copy) + '\n');
    assert.deepEqual(JSON.parse(stringifyMessage(copy)), copy);
  });

  test('blocks that look alike are told apart by position; a recorded string the line does not hold is stringified', () => {
    const original = parse('{"role":"assistant","content":[{"type":"toolCall","id":"x"},{"type":"toolCall","id":"x"}]}');
    const twice = recordEdits(original, { ...original, content: [{ type: 'toolCall', id: 'x1' }, { type: 'toolCall', id: 'x' }] }, [setBlockField(0, 'id', 'x', 'x1')]);
    const absent = recordEdits(original, { ...original, content: [{ type: 'toolCall', id: 'x1' }, { type: 'toolCall', id: 'x' }] }, [setBlockField(0, 'id', 'zz', 'x1')]);
    assert.equal(patchedLineOf(twice), JSON.stringify(twice));
    assert.equal(patchedLineOf(absent), undefined);
    assert.equal(stringifyMessage(absent), JSON.stringify(absent) + '\n');
  });

  test('removed fields are cut out with one comma, first, middle, last and only alike', () => {
    const message = { a: 1, role: 'toolResult', details: { x: [1, '"]}'] }, content: [{ type: 'text', text: 'd' }], b: 'z' };
    const original = parse(JSON.stringify(message));
    for (const drop of [['a'], ['details'], ['b'], ['a', 'role'], ['content', 'b'], ['details', 'b'], ['a', 'details', 'b'], ['a', 'role', 'details', 'content', 'b']]) {
      const copy = Object.fromEntries(Object.entries(original).filter(([key]) => !drop.includes(key))) as typeof original;
      const edited = recordEdits(original, copy, drop.map((key) => setField(key, (original as Record<string, unknown>)[key], undefined)));
      assert.equal(patchedLineOf(edited), JSON.stringify(copy), drop.join(','));
    }
  });

  test('a removed field keeps the spacing of a line JSON.stringify did not write', () => {
    const original = parse('{ "role" : "toolResult" , "details" : { "a" : [ 1 , 2 ] } , "content" : "x" }');
    const { details, ...rest } = original;
    const copy = recordEdits(original, rest as typeof original, [setField('details', details, undefined)]);
    assert.equal(patchedLineOf(copy), '{ "role" : "toolResult" , "content" : "x" }');
    assert.deepEqual(JSON.parse(patchedLineOf(copy)!), copy);
  });

  test('a recorded string the line writes with other escapes, and keys written with escapes', () => {
    // The line's text must be the string as JSON.stringify writes it: `\u0061` is "a", written otherwise.
    const spelled = parse('{"role":"toolResult","toolCallId":"\\u0061-1"}');
    const respelled = recordEdits(spelled, { ...spelled, toolCallId: 'a1' }, [setField('toolCallId', 'a-1', 'a1')]);
    assert.equal(patchedLineOf(respelled), undefined);
    assert.equal(stringifyMessage(respelled), '{"role":"toolResult","toolCallId":"a1"}\n');
    // A key with an escape is found by what it decodes to, and counts when the key occurs twice.
    const escapedKey = parse('{"role":"toolResult","tool\\u0043allId":"a-1"}');
    const renamed = recordEdits(escapedKey, { ...escapedKey, toolCallId: 'a1' }, [setField('toolCallId', 'a-1', 'a1')]);
    assert.equal(patchedLineOf(renamed), '{"role":"toolResult","tool\\u0043allId":"a1"}');
    const twice = parse('{"role":"toolResult","toolCallId":"a-1","tool\\u0043allId":"a-1"}');
    const doubled = recordEdits(twice, { ...twice, toolCallId: 'a1' }, [setField('toolCallId', 'a-1', 'a1')]);
    assert.equal(patchedLineOf(doubled), undefined);
  });

  test('escaped ids match as JSON writes them', () => {
    const original = parse(JSON.stringify({ role: 'toolResult', toolCallId: 'a"b\\c' }));
    const copy = recordEdits(original, { ...original, toolCallId: 'abc' }, [setField('toolCallId', 'a"b\\c', 'abc')]);
    assert.notEqual(patchedLineOf(copy), undefined);
    assert.deepEqual(JSON.parse(stringifyMessage(copy)), copy);
  });

  test('removed blocks are cut out with one comma each, first, middle and last alike', () => {
    const blocks = [{ type: 'thinking', thinking: 'a' }, { type: 'text', text: 'b' }, { type: 'thinking', thinking: 'c' }, { type: 'text', text: 'd' }, { type: 'thinking', thinking: 'e' }];
    const original = parse(JSON.stringify({ role: 'assistant', content: blocks }));
    const drop = [0, 2, 4];
    const copy = recordEdits(original, { ...original, content: blocks.filter((_, i) => !drop.includes(i)) }, drop.map((i) => removeBlock(i, blocks[i])));
    assert.equal(patchedLineOf(copy), JSON.stringify(copy));
  });

  test('edits of edits are patched in turn', () => {
    const original = parse('{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"a.1"}]}');
    const blocks = original.content as unknown[];
    const first = recordEdits(original, { ...original, content: [blocks[1]] } as typeof original, [removeBlock(0, blocks[0])]);
    const second = recordEdits(first, { ...first, content: [{ type: 'toolCall', id: 'a1' }] } as typeof original, [setBlockField(0, 'id', 'a.1', 'a1')]);
    assert.equal(patchedLineOf(second), '{"role":"assistant","content":[{"type":"toolCall","id":"a1"}]}');
  });

  test('a non-string value replaced is a splice too', () => {
    const original = parse('{"role":"toolResult","n":5,"m":[1,{"a":"]"}],"o":true}');
    const copy = recordEdits(original, { ...original, n: 'x', m: null, o: { p: 1 } }, [setField('n', 5, 'x'), setField('m', original.m, null), setField('o', true, { p: 1 })]);
    assert.equal(patchedLineOf(copy), JSON.stringify(copy));
  });

  test('a field added, a key written twice, or no original line: stringified', () => {
    const original = parse('{"role":"toolResult","toolUseId":"a","n":5}');
    const added = recordEdits(original, { ...original, toolCallId: 'a' }, [setField('toolCallId', undefined, 'a')]);
    const duplicated = parse('{"role":"toolResult","n":4,"n":5}');
    const twice = recordEdits(duplicated, { ...duplicated, n: 6 }, [setField('n', 5, 6)]);
    const unread = recordEdits({ role: 'user', a: 'x' }, { role: 'user', a: 'y' }, [setField('a', 'x', 'y')]);
    for (const copy of [added, twice, unread]) {
      assert.equal(patchedLineOf(copy), undefined);
      assert.equal(stringifyMessage(copy), JSON.stringify(copy) + '\n');
    }
  });
});
