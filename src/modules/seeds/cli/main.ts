// A minimal entry with only the seed commands (used by tests; `ferry seed …` is the real one):
//   node --import tsx src/modules/seeds/cli/main.ts seed create …
import { Command } from 'commander';
import { registerSeedCommands } from './index.js';
import { ferryVersion } from './options.js';

const program = new Command('ferry').version(ferryVersion());
registerSeedCommands(program);
try {
  await program.parseAsync(process.argv);
} catch (e) {
  process.stderr.write(`ferry: ${(e as Error).message}\n`);
  process.exit(1);
}
