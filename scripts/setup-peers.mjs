#!/usr/bin/env node
// Makes sure the programs the test suite (and, with --bench, the benchmarks) drive as real peers are
// installed, and that PostgreSQL is running. `npm test` runs it first; `.ci/run` runs it with --bench.
//
// Missing Debian packages are installed with apt-get when this runs as root (CI, a fresh machine); otherwise
// it prints the one command to run and exits 1. Nothing is installed when everything is present.
// Usage: node scripts/setup-peers.mjs [--bench] [--check]   (--check: report only, never install)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';

/** Debian packages and what they are for. */
const TEST_PACKAGES = {
  oathtool: '2FA codes',
  'zbar-tools': 'QR decoding',
  'openssh-client': 'ssh-keygen and sftp',
  mktorrent: 'BitTorrent interop',
  'transmission-cli': 'transmission-show',
  'python3-libtorrent': 'torrent piece checks, web seeds',
  radosgw: 'a real S3 server (Ceph RADOS Gateway)',
  'ceph-mon': 'Ceph for the S3 server',
  'ceph-osd': 'Ceph for the S3 server',
  'ceph-common': 'Ceph for the S3 server',
  chromium: 'the web UI tests',
  'postgresql-client': 'pg_isready',
  curl: 'HTTP tests',
  litmus: 'WebDAV compliance',
  rclone: 'WebDAV and S3 clients',
  cadaver: 'WebDAV client',
  aria2: 'offline downloads',
  'transmission-daemon': 'offline downloads',
  'qbittorrent-nox': 'offline downloads',
  opentracker: 'a local BitTorrent tracker',
  ffmpeg: 'video thumbnails',
  apache2: 'Apache mod_dav_fs (WebDAV reference)',
};
const BENCH_PACKAGES = {
  nginx: 'PUT/GET/listing yardstick',
  'openssh-server': 'SFTP yardstick',
  plocate: 'search yardstick',
  wrk: 'request rates',
  hyperfine: 'command timings',
  'libvips-tools': 'thumbnail yardstick (vipsthumbnail)',
};

const args = new Set(process.argv.slice(2));
const wanted = { ...TEST_PACKAGES, ...(args.has('--bench') ? BENCH_PACKAGES : {}) };

function installed(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function run(cmd, argv, env = {}) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
}

const haveDpkg = spawnSync('sh', ['-c', 'command -v dpkg-query'], { encoding: 'utf8' }).status === 0;
if (!haveDpkg) {
  process.stderr.write('setup-peers: not a Debian system (no dpkg-query); install the peers listed in scripts/setup-peers.mjs yourself.\n');
} else {
  const missing = Object.keys(wanted).filter((p) => !installed(p));
  if (missing.length > 0) {
    const cmd = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    if (args.has('--check') || !isRoot) {
      process.stderr.write(`setup-peers: missing Debian packages: ${missing.map((p) => `${p} (${wanted[p]})`).join(', ')}\nRun as root: apt-get update && ${cmd}\n`);
      process.exit(1);
    }
    process.stdout.write(`setup-peers: installing ${missing.join(' ')}\n`);
    // Services the packages ship (nginx, apache2, sshd, transmission) must not start: the tests and benchmarks
    // start their own on loopback. A policy-rc.d that refuses every start is put in place for the install.
    const policy = '/usr/sbin/policy-rc.d';
    const ownPolicy = !existsSync(policy);
    if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    const ok = run('apt-get', ['update', '-qq'], env) && run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], env);
    if (ownPolicy) rmSync(policy, { force: true });
    if (!ok) {
      process.stderr.write('setup-peers: apt-get failed\n');
      process.exit(1);
    }
  }
}

// The official OpenList web frontend, for test/openlist/official-frontend.test.ts: its published build (npm
// package, `dist/` only; installing it as a dependency would pull in its 49 dependencies), unpacked once
// into .peers/ (npm pack checks the registry's integrity hash).
const FRONTEND = '@openlist-frontend/openlist-frontend@4.2.6';
const frontendDir = new URL('../.peers/openlist-frontend-4.2.6/', import.meta.url).pathname;
if (!existsSync(`${frontendDir}dist/index.html`) && !args.has('--check')) {
  mkdirSync(frontendDir, { recursive: true });
  const packed = spawnSync('npm', ['pack', FRONTEND, '--pack-destination', frontendDir, '--silent'], { encoding: 'utf8' });
  const tgz = packed.stdout.trim().split('\n').pop();
  const ok = packed.status === 0 && tgz && run('tar', ['xzf', `${frontendDir}${tgz}`, '-C', frontendDir, '--strip-components=1', 'package/dist']);
  if (tgz) rmSync(`${frontendDir}${tgz}`, { force: true });
  if (!ok) {
    process.stderr.write(`setup-peers: could not fetch ${FRONTEND} from the npm registry: ${packed.stderr}\n`);
    process.exit(1);
  }
}

// PostgreSQL for the second database dialect (the machine provides the server; start it when it is down).
const pgUp = () => spawnSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', '5432']).status === 0;
if (!process.env.FERRY_TEST_DATABASE_URL && !pgUp()) {
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
  for (const v of versions) run('pg_ctlcluster', ['--skip-systemctl-redirect', v, 'main', 'start']);
  for (let i = 0; i < 30 && !pgUp(); i++) spawnSync('sleep', ['1']);
  if (!pgUp()) {
    process.stderr.write('setup-peers: PostgreSQL is not reachable on 127.0.0.1:5432 (start it, or set FERRY_TEST_DATABASE_URL)\n');
    process.exit(1);
  }
}
