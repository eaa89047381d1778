/**
 * Seed generation (contract §10.3): routes, the `seed_generate` task, and the pieces behind them
 * (request checks, file collection with direct/download decisions, name rules, all-or-nothing writes).
 */
export { GENERATE_URLS, registerSeedGenerateTask, seedGenerationRoutes } from './routes.js';
export { executeGeneration, prepareGeneration, seedSite } from './generate.js';
export type { GenerateResult, Prepared, RunOptions, SeedArtifact } from './generate.js';
export { seedCapabilities } from './capabilities.js';
export { INVALID_SEED_NAME, checkSeedName, commonAncestor, commonDir, deriveSeedName, stripExtension } from './names.js';
export { GenerateBody, parseGenerateRequest, trackerProblem } from './request.js';
export type { GenerateBodyT, GenerateOptions } from './request.js';
