// The `ferry seed …` commands: create, inspect, verify and convert transfer seeds on local files.
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { decodeAny } from '../formats/index.js';
import { createSeeds } from './create.js';
import type { CreateOptions } from './create.js';
import { convertFile } from './convert.js';
import type { ConvertOptions } from './convert.js';
import { inspectJson, inspectText } from './inspect.js';
import type { InspectOptions } from './inspect.js';
import { collect } from './options.js';
import { verifySeed, verifyText } from './verify.js';

export { createSeeds } from './create.js';
export { collectInputs } from './files.js';
export { verifySeed } from './verify.js';
export type { VerifyReport } from './verify.js';

/** Runs `fn` with a signal that Ctrl-C aborts (hashing then stops promptly). */
async function interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onInt = () => ac.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
  process.once('SIGINT', onInt);
  try {
    return await fn(ac.signal);
  } finally {
    process.removeListener('SIGINT', onInt);
  }
}

async function readSeed(file: string) {
  const path = resolve(file);
  return decodeAny(await readFile(path), { filename: basename(path) });
}

/** Adds `seed create|inspect|verify|convert` to a commander program. */
export function registerSeedCommands(program: Command): Command {
  const seed = program.command('seed').description('create, inspect, verify and convert transfer seeds (.oss, .torrent, .cas)');

  seed
    .command('create')
    .description('hash files or directories once and write the seed as DIR/<name>.<format> for each format')
    .argument('<paths...>', 'files and/or directories (a directory is included recursively, paths relative to it)')
    .option('--format <list>', 'comma-separated: oss, torrent (bt), cas', 'oss')
    .option('--matrix <json>', 'hash matrix, e.g. {"md5":{"whole":true,"pieces":true},"sha256":{"whole":true}} (default: whole md5, sha1, sha256)')
    .option('--piece-size <bytes>', 'piece size: bytes, 256KiB, 2^18 … (16 KiB–64 MiB; default 10 MiB; cas forces 10 MiB)')
    .option('--name <name>', 'seed name (default: derived from the inputs)')
    .option('--tracker <url>', 'tracker URL (repeatable)', collect, [])
    .option('--comment <text>', 'overall comment')
    .option('-o, --output <dir>', 'directory to write the seeds into', '.')
    .option('-f, --force', 'overwrite existing seed files')
    .action(async (paths: string[], opts: CreateOptions) => {
      const r = await interruptible((signal) => createSeeds(paths, opts, signal));
      const total = r.seed.files.reduce((n, f) => n + f.size, 0);
      process.stderr.write(`seed "${r.seed.name}": ${r.seed.files.length} file(s), ${total} bytes, piece size ${r.seed.piece_size}\n`);
      for (const w of r.written) {
        process.stdout.write(`${w.path}\n`);
        if (w.infoHash) process.stderr.write(`info hash ${w.infoHash}\n`);
      }
    });

  seed
    .command('inspect')
    .description('show what a .oss, .torrent or .cas holds')
    .argument('<file>')
    .option('--json', 'print JSON (format, info_hash, seed, total_size, conversions, diagnostics)')
    .option('--pieces', 'list every piece hash')
    .action(async (file: string, opts: InspectOptions) => {
      const d = await readSeed(file);
      process.stdout.write(opts.json ? `${JSON.stringify(inspectJson(d), null, 2)}\n` : inspectText(d, opts));
    });

  seed
    .command('verify')
    .description('re-hash the data a seed describes; exit code 1 when any file or piece differs')
    .argument('<file>', 'the seed')
    .argument('<data_dir>', 'directory holding the seed\'s paths (or a folder named after the seed inside it)')
    .option('--json', 'print the report as JSON')
    .action(async (file: string, dataDir: string, opts: { json?: boolean }) => {
      const d = await readSeed(file);
      const r = await interruptible((signal) => verifySeed(d, resolve(dataDir), signal));
      process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : verifyText(r, d.seed.name));
      if (!r.ok) process.exitCode = 1;
    });

  seed
    .command('convert')
    .description('rewrite a seed in another container (from the hashes it carries)')
    .argument('<file>')
    .requiredOption('--to <format>', 'oss, torrent or cas')
    .option('-o, --output <path>', 'output file or directory (default: <seed name>.<format> beside FILE)')
    .option('-f, --force', 'overwrite an existing output')
    .action(async (file: string, opts: ConvertOptions) => {
      const r = await convertFile(file, opts);
      process.stdout.write(`${r.path}\n`);
    });

  return seed;
}
