// Benchmark runner: `npm run bench -- NAME [args…]` (tsx bench/run.ts NAME …).
// To add a benchmark, create bench/NAME.ts exporting `run(args: string[]): Promise<void>`
// and a one-line `describe`, then list it below.
interface BenchModule {
  describe: string;
  run(args: string[]): Promise<void>;
}

const benchmarks: Record<string, () => Promise<BenchModule>> = {
  hashing: () => import('./hashing.js'),
  'hashing-threshold': () => import('./hashing-threshold.js'),
  'upload-rss': () => import('./upload-rss.js'),
  'hash-on-write': () => import('./hash-on-write.js'),
  sftp: () => import('./sftp.js'),
  upload: () => import('./upload.js'),
  hostile: () => import('./hostile.js'),
  datapath: () => import('./datapath.js'),
  search: () => import('./search.js'),
  thumbnails: () => import('./thumbnails.js'),
};

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  if (!name || name === '--help' || name === '-h' || !benchmarks[name]) {
    if (name && name !== '--help' && name !== '-h') process.stderr.write(`unknown benchmark: ${name}\n\n`);
    process.stderr.write('usage: npm run bench -- NAME [args…]\n\nbenchmarks:\n');
    for (const [n, load] of Object.entries(benchmarks)) process.stderr.write(`  ${n.padEnd(20)} ${(await load()).describe}\n`);
    process.exit(name ? 2 : 0);
  }
  const mod = await benchmarks[name]!();
  await mod.run(args);
}

await main();
