export { resolveSidecarPlan } from './plan.js';
export type { SidecarHeaders, SidecarPlan } from './plan.js';
export { storeWithSidecars } from './write.js';
export type { SidecarUpload } from './write.js';
export { sidecarName, sidecarNamesOf, sidecarOwner } from './names.js';
export { recoverJournal } from './journal.js';
