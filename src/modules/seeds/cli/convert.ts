// `seed convert FILE --to FORMAT`: rewrite a seed in another container, from the data it carries.
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { SeedFormatError, convertSeed, decodeAny } from '../formats/index.js';
import type { SeedFormat } from '../formats/index.js';
import { parseFormats } from './options.js';

export interface ConvertOptions {
  to: string;
  output?: string;
  force?: boolean;
}

export async function convertFile(file: string, opts: ConvertOptions): Promise<{ format: SeedFormat; path: string }> {
  const formats = parseFormats(opts.to);
  if (formats.length !== 1) throw new SeedFormatError('--to', 'give exactly one target format');
  const target = formats[0]!;
  const src = resolve(file);
  const decoded = decodeAny(await readFile(src), { filename: basename(src) });
  const r = convertSeed(decoded, target);
  if (!r.feasible) {
    const why = r.missing.map((m) => `  ${m.file}: ${m.reason}`).join('\n');
    throw new Error(`cannot convert ${basename(src)} to ${target} without the data; missing:\n${why}\n(re-create it from the files with "seed create --format ${target}")`);
  }
  let out = opts.output === undefined ? join(dirname(src), r.file_name) : resolve(opts.output);
  if (opts.output !== undefined && (await stat(out).then((s) => s.isDirectory(), () => false))) out = join(out, r.file_name);
  if (out === src) throw new Error(`${out}: refusing to overwrite the input`);
  if (!opts.force && (await access(out).then(() => true, () => false))) throw new Error(`${out} exists (use --force to overwrite)`);
  await writeFile(out, r.data);
  return { format: target, path: out };
}
