/**
 * For a test file: the local swarm and an `aria2c --enable-rpc` with `secret`, started before its tests and stopped
 * (by PID) after them. Call at the top level of the file.
 */
import { after, before } from 'node:test';
import { bytes } from '../seeds-generate/helpers.js';
import { seedOk } from '../seeds-peers/peers.js';
import type { Aria2 } from '../../src/modules/offline/tools/aria2.js';
import { startAria2, startSwarm, type Proc, type Swarm } from './swarm.js';

export function swarmWithAria2(secret: string): { swarm: () => Swarm; aria2: () => { proc: Proc; uri: string; client: Aria2 } } {
  let swarm: Swarm | undefined;
  let aria2: { proc: Proc; uri: string; client: Aria2 } | undefined;
  before(async () => {
    swarm = await startSwarm(bytes, seedOk);
    aria2 = await startAria2(swarm, secret);
  });
  after(async () => {
    await aria2?.proc.stop();
    await swarm?.stop();
  });
  return { swarm: () => swarm!, aria2: () => aria2! };
}
