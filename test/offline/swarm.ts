/**
 * A BitTorrent swarm on loopback for the offline-download tests: `opentracker` (whitelisting the test
 * torrents), an `aria2c` seeder holding them, and the `aria2c --enable-rpc` Ferry drives. Every process is
 * started here and stopped by its PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { requireCommand } from '../support/commands.js';
import { decodeTorrent } from '../../src/modules/seeds/formats/index.js';
import { Aria2 } from '../../src/modules/offline/tools/aria2.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  log: () => string;
  stop(): Promise<void>;
}

export function start(cmd: string, args: string[]): Proc {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20000)));
  child.stderr!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20000)));
  return {
    child,
    log: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([gone, sleep(3000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** opentracker on 127.0.0.1:`port`, chrooted to `dir`, announcing only the listed info hashes. */
export function opentracker(dir: string, port: number, infoHashes: string[]): Proc {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'whitelist.txt'), infoHashes.join('\n') + '\n');
  return start('opentracker', ['-i', '127.0.0.1', '-p', String(port), '-P', String(port), '-d', dir, '-w', '/whitelist.txt']);
}

const QUIET_BT = ['--enable-dht=false', '--enable-dht6=false', '--bt-enable-lpd=false', '--enable-peer-exchange=false', '--no-conf=true', '--disable-ipv6=true'];

/**
 * An aria2c seeding `torrents` from `dataDir` (verified first), at most `uploadLimit` per second overall.
 * `unverified`: it seeds what `dataDir` holds without checking it (a seeder serving corrupted pieces).
 */
export function seeder(torrents: string[], dataDir: string, listenPort: number, uploadLimit = '0', unverified = false): Proc {
  const check = unverified ? ['--check-integrity=false', '--bt-seed-unverified=true'] : ['--check-integrity=true'];
  return start('aria2c', [...QUIET_BT, '-Z', ...check, '--seed-ratio=0.0', `--max-overall-upload-limit=${uploadLimit}`, `--listen-port=${listenPort}`, '--bt-tracker-interval=1', `--dir=${dataDir}`, '--console-log-level=warn', '--summary-interval=0', ...torrents]);
}

/** The aria2 Ferry drives: JSON-RPC on loopback with a secret. */
export function aria2Rpc(rpcPort: number, secret: string, listenPort: number, dir: string): Proc {
  return start('aria2c', [...QUIET_BT, '--enable-rpc', '--rpc-listen-all=false', `--rpc-listen-port=${rpcPort}`, `--rpc-secret=${secret}`, `--listen-port=${listenPort}`, `--dir=${dir}`, '--bt-tracker-interval=1', '--console-log-level=warn', '--summary-interval=0']);
}

/** An `aria2c --enable-rpc` (secret `secret`) downloading by default below the swarm's root, once its RPC answers. */
export async function startAria2(swarm: Swarm, secret: string): Promise<{ proc: Proc; uri: string; client: Aria2 }> {
  const rpcPort = await freePort();
  const proc = aria2Rpc(rpcPort, secret, await freePort(), join(swarm.root, 'aria2-default'));
  const uri = `http://127.0.0.1:${rpcPort}/jsonrpc`;
  const client = new Aria2(uri, secret);
  await until(() => client.version().catch(() => null), 15_000, 'aria2 RPC');
  return { proc, uri, client };
}

/** Waits until `fn` returns something truthy. */
export async function until<T>(fn: () => Promise<T | null | undefined | false>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** A torrent some seeder serves with every other piece corrupted (`corruptedPieces`); `data` is the right content. */
export interface Corrupted {
  data: Buffer;
  torrent: Buffer;
  hash: string;
  corruptedPieces: number[];
}

export interface Swarm {
  root: string;
  trackerUrl: string;
  /**
   * `seed_trusted_source_hosts` lines trusting the swarm's loopback tracker: without them Ferry refuses its magnets
   * and torrents (issue #22, SSRF rules for the URLs inside them). Every suite sets them explicitly in its setup.
   */
  trustedHosts: string;
  /** A folder torrent (`album/…`: nested folder, empty file), seeded at full speed. */
  album: { files: Record<string, Buffer>; torrent: Buffer; hash: string };
  /** One 6 MiB file (`big/big.bin`), seeded at 64 KiB/s so a download can be canceled half-way. */
  big: { torrent: Buffer; hash: string };
  /**
   * `odd/odd.bin` (400 KiB, 16 KiB pieces): a good seeder at 64 KiB/s and, at full speed, a seeder whose copy
   * has every other piece corrupted and which serves it unverified.
   */
  odd: Corrupted;
  /**
   * `lone/lone.bin` (400 KiB, 16 KiB pieces): seeded by nobody until a test starts `freshSeeder('lone')` (every
   * other piece corrupted, on 127.0.0.1) and `ipv6Seeder` (the good copy, from [::1]).
   */
  lone: Corrupted;
  /**
   * A new aria2c seeder of one torrent (`big` at 64 KiB/s, `lone` corrupted): a fresh peer table. aria2 shuns an
   * address it failed to reach for 2–10 minutes, e.g. a Transmission that dropped the torrent, and Transmission only
   * gets incoming peers on loopback, so its tests cannot rely on the long-running seeders reaching it again.
   */
  freshSeeder(name: 'album' | 'big' | 'lone'): Promise<Proc>;
  /** The seeders' data folder (`album/`, `big/`, `odd/`, `lone/`) and the torrents' paths. */
  dataDir: string;
  torrentPath(name: 'album' | 'big' | 'odd' | 'lone'): string;
  magnet(hash: string, name: string): string;
  stop(): Promise<void>;
}

function writeTree(dir: string, files: Record<string, Buffer>): void {
  for (const [p, data] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), data);
  }
}

/** opentracker and aria2c seeders on loopback, holding torrents Ferry's own `seed create` made. */
export async function startSwarm(makeBytes: (size: number, seed: number) => Buffer, seedCreate: (...args: string[]) => unknown): Promise<Swarm> {
  requireCommand('aria2c', 'aria2');
  requireCommand('opentracker', 'opentracker');
  const root = mkdtempSync(join(tmpdir(), 'ferry-swarm-'));
  const procs: Proc[] = [];
  const trackerPort = await freePort();
  const trackerUrl = `http://127.0.0.1:${trackerPort}/announce`;
  const files = { 'a.bin': makeBytes(150_000, 21), 'sub/deep/b.bin': makeBytes(90_000, 22), 'sub/empty.txt': Buffer.alloc(0), 'z.txt': Buffer.from('the last one\n') };
  const data = join(root, 'seed-data');
  writeTree(join(data, 'album'), files);
  writeTree(join(data, 'big'), { 'big.bin': makeBytes(6 * 1024 * 1024, 23) });
  const bad = join(root, 'corrupt-data');
  /** `<name>/<name>.bin` of 400 KiB: the right copy below `data`, one with every other piece corrupted below `bad`. */
  const corrupted = (name: string, seed: number): Corrupted => {
    const good = makeBytes(400 * 1024, seed);
    writeTree(join(data, name), { [`${name}.bin`]: good });
    seedCreate('create', join(data, name), '--format', 'torrent', '--piece-size', '16384', '--tracker', trackerUrl, '-o', root);
    const corruptedPieces = Array.from({ length: good.length / 16384 }, (_, i) => i).filter((i) => i % 2 === 0);
    const copy = Buffer.from(good);
    for (const i of corruptedPieces) copy[i * 16384 + 100] = copy[i * 16384 + 100]! ^ 0xff;
    writeTree(join(bad, name), { [`${name}.bin`]: copy });
    const torrent = readFileSync(join(root, `${name}.torrent`));
    return { data: good, torrent, hash: decodeTorrent(torrent).info_hash, corruptedPieces };
  };
  for (const name of ['album', 'big']) seedCreate('create', join(data, name), '--format', 'torrent', '--piece-size', '16384', '--tracker', trackerUrl, '-o', root);
  const albumTorrent = readFileSync(join(root, 'album.torrent'));
  const bigTorrent = readFileSync(join(root, 'big.torrent'));
  const album = { files, torrent: albumTorrent, hash: decodeTorrent(albumTorrent).info_hash };
  const big = { torrent: bigTorrent, hash: decodeTorrent(bigTorrent).info_hash };
  const odd = corrupted('odd', 24);
  const lone = corrupted('lone', 25);
  procs.push(opentracker(join(root, 'tracker'), trackerPort, [album.hash, big.hash, odd.hash, lone.hash]));
  procs.push(seeder([join(root, 'album.torrent')], data, await freePort()));
  procs.push(seeder([join(root, 'big.torrent')], data, await freePort(), '64K'));
  procs.push(seeder([join(root, 'odd.torrent')], data, await freePort(), '64K'));
  procs.push(seeder([join(root, 'odd.torrent')], bad, await freePort(), '0', true));
  return {
    root,
    trackerUrl,
    trustedHosts: `# the test swarm's tracker (loopback)\n127.0.0.1:${trackerPort}\n`,
    album,
    big,
    odd,
    lone,
    dataDir: data,
    freshSeeder: async (name) => {
      const p = seeder([join(root, `${name}.torrent`)], name === 'lone' ? bad : data, await freePort(), name === 'big' ? '64K' : '0', name === 'lone');
      procs.push(p);
      return p;
    },
    torrentPath: (name) => join(root, `${name}.torrent`),
    magnet: (hash, name) => `magnet:?xt=urn:btih:${hash}&dn=${name}&tr=${encodeURIComponent(trackerUrl)}`,
    stop: async () => {
      for (const p of procs) await p.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** transmission-daemon in the foreground: RPC on loopback with a user and password, no DHT/LPD/port mapping. */
export function transmission(configDir: string, rpcPort: number, peerPort: number, user: string, password: string): Proc {
  mkdirSync(configDir, { recursive: true });
  return start('transmission-daemon', ['-f', '-g', configDir, '-p', String(rpcPort), '-P', String(peerPort), '-i', '127.0.0.1', '-I', '::1', '-r', '127.0.0.1', '-a', '127.0.0.1', '-t', '-u', user, '-v', password, '-O', '-Y', '-M', '--no-utp', '-w', join(configDir, 'downloads'), '--log-error']);
}

/** qbittorrent-nox with its own profile: Web UI on loopback, `user`/`password` (PBKDF2 as it stores it), no DHT/LSD/PeX. */
export function qbittorrent(profile: string, webPort: number, peerPort: number, user: string, password: string): Proc {
  const salt = randomBytes(16);
  const key = pbkdf2Sync(password, salt, 100_000, 64, 'sha512');
  const conf = join(profile, 'qBittorrent', 'config');
  mkdirSync(conf, { recursive: true });
  writeFileSync(join(conf, 'qBittorrent.conf'), [
    '[LegalNotice]', 'Accepted=true', '',
    '[BitTorrent]', 'Session\\DHTEnabled=false', 'Session\\LSDEnabled=false', 'Session\\PeXEnabled=false', 'Session\\MultiConnectionsPerIp=true', `Session\\Port=${peerPort}`, 'Session\\AnonymousModeEnabled=false', '',
    '[Preferences]', `WebUI\\Port=${webPort}`, 'WebUI\\Address=127.0.0.1', `WebUI\\Username=${user}`, `WebUI\\Password_PBKDF2="@ByteArray(${salt.toString('base64')}:${key.toString('base64')})"`,
    'WebUI\\LocalHostAuth=true', 'WebUI\\HostHeaderValidation=false', 'WebUI\\CSRFProtection=false', 'Connection\\UPnP=false', 'General\\Locale=en', '',
  ].join('\n'));
  return start('qbittorrent-nox', [`--profile=${profile}`, `--webui-port=${webPort}`]);
}

const LTSEED = new URL('./ltseed.py', import.meta.url).pathname;

/**
 * A libtorrent seeder of `name` (the right bytes) listening on [::1] only, which connects to [::1]:`peerPort`
 * itself (the tool under test): a second, distinct peer for a tool that keeps one peer per address. Resolves
 * once it has checked its data and seeds.
 */
export async function ipv6Seeder(swarm: Swarm, name: 'odd' | 'lone', peerPort: number): Promise<Proc> {
  requireCommand('/usr/bin/python3', 'python3-libtorrent');
  const p = start('/usr/bin/python3', [LTSEED, swarm.torrentPath(name), swarm.dataDir, String(await freePort()), String(peerPort)]);
  try {
    await until(async () => {
      if (p.child.exitCode !== null) throw new Error(`the IPv6 seeder exited: ${p.log()}`);
      return /^seeding$/m.test(p.log());
    }, 30_000, 'the IPv6 seeder');
  } catch (e) {
    await p.stop();
    throw e;
  }
  return p;
}
