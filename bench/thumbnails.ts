// Thumbnails: 1,000 images (JPEG and WebP of 1–12 MP, PNG of 1–4 MP) in one folder of the BUILT server's default
// local storage; Ferry makes every thumbnail through its `thumbnails` task (POST /api/fs/thumbnails, polled until
// done), and Debian's `vipsthumbnail` (libvips-tools, the library sharp wraps) makes the same 256 px WebP
// thumbnails of the same files, as two processes (Ferry makes two at once). Runs alternate Ferry / vipsthumbnail,
// each Ferry run on a fresh server with an empty cache. Reports the medians of time and images/s, the ratio, and the
// Ferry process's peak RSS (VmHWM of each run's server, target ≤ 200 MB) against vipsthumbnail's (the two processes'
// max RSS added).
//
//   npm run build && npm run bench -- thumbnails [--images 1000] [--runs 3] [--distinct 48] [--database-url postgres://…]
//
// The images are copies of `--distinct` generated ones (smooth noise, which compresses like photos; generating
// 1,000 distinct 12 MP images takes many minutes), each copy its own file. They are kept in
// <tmp>/ferry-bench-thumbs-<images>-<distinct>/data/files/pics for the next run (delete the folder to regenerate).
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { api, startServer } from '../test/support/process.js';
import { haveTool, parseArgs, printTable, runTool, timeIt } from './lib.js';

export const describe = 'thumbnails of 1,000 images (JPEG/PNG/WebP, 1–12 MP) by the thumbnails task vs vipsthumbnail; peak RSS';

const PASSWORD = 'bench-admin-pass';
const EDGE = 256;

interface Source {
  name: string;
  format: 'jpeg' | 'png' | 'webp';
  megapixels: number;
}

/** The distinct images: half JPEG, a quarter each WebP and PNG; sizes spread over 1–12 MP (PNG 1–4 MP). */
function sources(distinct: number): Source[] {
  return Array.from({ length: distinct }, (_, i) => {
    const format = (['jpeg', 'webp', 'jpeg', 'png'] as const)[i % 4]!;
    const k = Math.floor(i / 4);
    const megapixels = format === 'png' ? 1 + (k % 4) : 1 + (k % 12);
    return { name: `src-${String(i).padStart(3, '0')}.${format === 'jpeg' ? 'jpg' : format}`, format, megapixels };
  });
}

async function makeImage(path: string, s: Source, seed: number): Promise<void> {
  const w = Math.round(Math.sqrt((s.megapixels * 1e6 * 4) / 3));
  const h = Math.round((w * 3) / 4);
  // coarse noise scaled up: smooth, photo-like content; each image differs (mean and scale by seed)
  const div = 24 + (seed % 5) * 8;
  const noise = await sharp({ create: { width: Math.ceil(w / div), height: Math.ceil(h / div), channels: 3, background: '#000', noise: { type: 'gaussian', mean: 100 + (seed % 50), sigma: 50 } } }).png().toBuffer();
  const img = sharp(noise).resize(w, h);
  const out = s.format === 'jpeg' ? img.jpeg({ quality: 85 }) : s.format === 'png' ? img.png({ compressionLevel: 6 }) : img.webp({ quality: 80, effort: 2 });
  await out.toFile(path);
}

/** `dir/data/files/pics` (the default storage's /pics) with `images` files (copies of the distinct ones), made once and kept. */
async function prepare(dir: string, images: number, distinct: number): Promise<string[]> {
  const pics = join(dir, 'data', 'files', 'pics');
  const done = join(dir, 'complete');
  const pool = sources(distinct);
  const names = Array.from({ length: images }, (_, i) => {
    const s = pool[i % pool.length]!;
    return `img-${String(i).padStart(5, '0')}-${s.megapixels}mp.${s.name.split('.').pop()}`;
  });
  if (existsSync(done)) return names;
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'pool'), { recursive: true });
  await mkdir(pics, { recursive: true });
  const secs = await timeIt(async () => {
    for (const [i, s] of pool.entries()) await makeImage(join(dir, 'pool', s.name), s, i);
    for (const [i, n] of names.entries()) await copyFile(join(dir, 'pool', pool[i % pool.length]!.name), join(pics, n));
  });
  await writeFile(done, '');
  console.log(`made ${distinct} images and ${images} copies in ${pics} in ${secs.toFixed(0)} s`);
  return names;
}

async function countWebp(dir: string): Promise<number> {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile() && e.name.endsWith('.webp')) n++;
  return n;
}

/** Peak resident set size of a live process (Linux `/proc/<pid>/status` VmHWM), in bytes. */
async function vmHwm(pid: number): Promise<number> {
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** One Ferry run: fresh server, database and cache; time from the request to the task's end; the server's peak RSS. */
async function ferryRun(data: string, images: number, databaseUrl: string | undefined): Promise<{ secs: number; peak: number }> {
  // everything but the images goes: the database, the secret, the thumbnail cache
  for (const e of await readdir(data)) if (e !== 'files') await rm(join(data, e), { recursive: true, force: true });
  const env: Record<string, string> = { FERRY_DATA_DIR: data, FERRY_ADMIN_PASSWORD: PASSWORD };
  if (databaseUrl) env.FERRY_DATABASE_URL = databaseUrl;
  const server = await startServer(env);
  try {
    const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: PASSWORD } });
    if (login.status !== 200) throw new Error(`login failed: ${login.body.message}`);
    const token = login.body.data.token as string;
    const secs = await timeIt(async () => {
      const r = await api(server.url, 'POST', '/api/fs/thumbnails', { token, body: { path: '/pics' } });
      if (r.status !== 200) throw new Error(`thumbnails: ${r.body.message}`);
      for (;;) {
        await new Promise((res) => setTimeout(res, 50));
        const t = await api(server.url, 'GET', `/api/task/thumbnails/info?tid=${r.body.data.id}`, { token });
        if ([2, 4, 7].includes(t.body.data.state)) {
          if (t.body.data.state !== 2) throw new Error(`task ended in state ${t.body.data.state}: ${t.body.data.error}`);
          break;
        }
      }
    });
    const peak = await vmHwm(server.child.pid!);
    const made = await countWebp(join(data, 'thumbs'));
    if (made !== images) throw new Error(`Ferry made ${made} thumbnails of ${images}`);
    return { secs, peak };
  } finally {
    await server.stop();
  }
}

/** One vipsthumbnail run: two processes, each half the files, same size and quality; max RSS of each added. */
async function vipsRun(work: string, pics: string, names: string[]): Promise<{ secs: number; peak: number }> {
  const out = join(work, 'vips-out');
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const halves = [names.filter((_, i) => i % 2 === 0), names.filter((_, i) => i % 2 === 1)];
  let peak = 0;
  const secs = await timeIt(() =>
    Promise.all(
      halves.map(async (files) => {
        const r = await runTool('/usr/bin/time', ['-f', 'maxrss=%M', 'vipsthumbnail', '-s', `${EDGE}x${EDGE}`, '-o', `${out}/%s.webp[Q=70]`, ...files.map((f) => join(pics, f))]);
        if (r.code !== 0) throw new Error(`vipsthumbnail exited ${r.code}: ${r.stderr.slice(-500)}`);
        peak += Number(/maxrss=(\d+)/.exec(r.stderr)?.[1] ?? 0) * 1024;
      }),
    ),
  );
  const made = await countWebp(out);
  if (made !== names.length) throw new Error(`vipsthumbnail made ${made} thumbnails of ${names.length}`);
  return { secs, peak };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { images: 'value', runs: 'value', distinct: 'value', 'database-url': 'value' });
  const images = Number(opt.images ?? 1000);
  const runs = Math.max(1, Number(opt.runs ?? 3));
  const distinct = Math.max(1, Math.min(images, Number(opt.distinct ?? 48)));
  for (const t of ['vipsthumbnail', '/usr/bin/time']) if (!haveTool(t)) throw new Error(`${t} is needed (Debian: apt-get install libvips-tools time; or node scripts/setup-peers.mjs --bench)`);

  const work = join(tmpdir(), `ferry-bench-thumbs-${images}-${distinct}`);
  const names = await prepare(work, images, distinct);
  const pics = join(work, 'data', 'files', 'pics');
  let bytes = 0;
  for (const n of names) bytes += (await stat(join(pics, n))).size;
  console.log(`${images} images, ${(bytes / 1e9).toFixed(2)} GB, in ${pics}`);

  const ferry: { secs: number; peak: number }[] = [];
  const vips: { secs: number; peak: number }[] = [];
  for (let i = 0; i < runs; i++) {
    ferry.push(await ferryRun(join(work, 'data'), images, typeof opt['database-url'] === 'string' ? opt['database-url'] : undefined));
    vips.push(await vipsRun(work, pics, names));
    console.log(`run ${i + 1}: Ferry ${ferry[i]!.secs.toFixed(1)} s (peak RSS ${(ferry[i]!.peak / 1e6).toFixed(0)} MB), vipsthumbnail ${vips[i]!.secs.toFixed(1)} s`);
  }
  for (const e of await readdir(join(work, 'data'))) if (e !== 'files') await rm(join(work, 'data', e), { recursive: true, force: true });
  await rm(join(work, 'vips-out'), { recursive: true, force: true });
  const fs = median(ferry.map((r) => r.secs));
  const vs = median(vips.map((r) => r.secs));
  const fp = Math.max(...ferry.map((r) => r.peak));
  const vp = Math.max(...vips.map((r) => r.peak));
  console.log(`\nmedians of ${runs} alternating runs (2 at once on both sides)`);
  printTable(
    ['measure', 'Ferry task', 'vipsthumbnail ×2', 'ratio', 'target'],
    [
      ['time (s)', fs.toFixed(2), vs.toFixed(2), (fs / vs).toFixed(2), ''],
      ['images/s', (images / fs).toFixed(1), (images / vs).toFixed(1), '', ''],
      ['peak RSS (MB, worst run)', (fp / 1e6).toFixed(0), (vp / 1e6).toFixed(0), '', 'Ferry ≤ 200'],
    ],
  );
}
