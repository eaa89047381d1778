/**
 * SFTP host keys (contract §1, §6): made once in `<data dir>/ssh/` and reused across
 * restarts, so clients' known_hosts entries stay valid.
 *
 *  - `ssh_host_ed25519_key`: OpenSSH private-key format (what `ssh-keygen` writes), built here
 *    from a node:crypto Ed25519 key, since node:crypto cannot write that format itself.
 *  - `ssh_host_rsa_key`: RSA 3072, PKCS#1 PEM (`BEGIN RSA PRIVATE KEY`), which ssh2 and
 *    OpenSSH both read.
 *
 * Each has a `.pub` beside it (`type base64 comment`, as `ssh-keygen -y` prints). A key file
 * that exists but cannot be parsed stops start-up instead of being silently replaced: a new
 * host key is a new server identity for every client.
 */
import { generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { chmod, link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ssh2 from 'ssh2';

const generateKeyPairAsync = promisify(generateKeyPair);

export const HOST_KEY_FILES = ['ssh_host_ed25519_key', 'ssh_host_rsa_key'] as const;
export const RSA_HOST_KEY_BITS = 3072;

export interface HostKey {
  /** File holding the private key. */
  file: string;
  /** The private key text, as given to ssh2's `hostKeys`. */
  privateKey: string;
  /** `type base64` of the public key (no comment). */
  publicKey: string;
}

function sshString(b: Buffer | string): Buffer {
  const data = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** Ed25519 key pair → OpenSSH private-key file text (unencrypted) and the public key line. */
export function ed25519ToOpenSsh(privateKey: KeyObject, comment: string): { privateKey: string; publicKey: string } {
  const jwk = privateKey.export({ format: 'jwk' });
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) throw new Error('not an Ed25519 private key');
  const seed = Buffer.from(jwk.d, 'base64url');
  const pub = Buffer.from(jwk.x, 'base64url');
  const pubBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4);
  let priv = Buffer.concat([check, check, sshString('ssh-ed25519'), sshString(pub), sshString(Buffer.concat([seed, pub])), sshString(comment)]);
  const pad: number[] = [];
  for (let i = 1; (priv.length + pad.length) % 8 !== 0; i++) pad.push(i);
  priv = Buffer.concat([priv, Buffer.from(pad)]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(pubBlob),
    sshString(priv),
  ]);
  const b64 = body.toString('base64').replace(/.{1,70}/g, '$&\n');
  return {
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${b64}-----END OPENSSH PRIVATE KEY-----\n`,
    publicKey: `ssh-ed25519 ${pubBlob.toString('base64')}`,
  };
}

/** The `type base64` public line of a private key text ssh2 can parse; throws otherwise. */
export function publicLineOf(privateKeyText: string, file: string): string {
  const parsed = ssh2.utils.parseKey(privateKeyText);
  if (parsed instanceof Error) throw new Error(`SFTP host key ${file} cannot be read (${parsed.message}); delete it to have a new one made`);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || !key.isPrivateKey()) throw new Error(`SFTP host key ${file} is not a private key; delete it to have a new one made`);
  return `${key.type} ${key.getPublicSSH().toString('base64')}`;
}

async function generate(name: (typeof HOST_KEY_FILES)[number]): Promise<string> {
  const comment = `ferry-host-key`;
  if (name === 'ssh_host_ed25519_key') {
    const { privateKey } = await generateKeyPairAsync('ed25519');
    return ed25519ToOpenSsh(privateKey, comment).privateKey;
  }
  const { privateKey } = await generateKeyPairAsync('rsa', { modulusLength: RSA_HOST_KEY_BITS, publicExponent: 0x10001 });
  return privateKey.export({ format: 'pem', type: 'pkcs1' }).toString();
}

async function readIfPresent(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Loads the host keys from `dir` (`<data dir>/ssh`), making the missing ones. Safe against
 * two processes starting on the same data dir at once: the key is published with `link`,
 * which fails if another process got there first (its key is then used).
 */
export async function loadHostKeys(dir: string): Promise<HostKey[]> {
  const out: HostKey[] = [];
  for (const name of HOST_KEY_FILES) {
    const file = join(dir, name);
    let text = await readIfPresent(file);
    if (text === null) {
      const fresh = await generate(name);
      const tmp = join(dir, `.${name}.${randomBytes(6).toString('hex')}`);
      await writeFile(tmp, fresh, { mode: 0o600, flag: 'wx' });
      try {
        await link(tmp, file);
        text = fresh;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        text = await readFile(file, 'utf8');
      } finally {
        await rm(tmp, { force: true });
      }
    }
    await chmod(file, 0o600).catch(() => undefined);
    const publicKey = publicLineOf(text, file);
    const pubFile = `${file}.pub`;
    const want = `${publicKey} ferry-host-key\n`;
    if ((await readIfPresent(pubFile)) !== want) await writeFile(pubFile, want, { mode: 0o644 });
    out.push({ file, privateKey: text, publicKey });
  }
  return out;
}
