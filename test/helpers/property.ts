import fc from 'fast-check';

/**
 * Property tests run a fixed seed by default so `npm test` is deterministic; set
 * STW_FC_SEED=random (or a number) to explore other cases. A failure prints its seed.
 */
const requested = process.env['STW_FC_SEED'];
if (requested !== 'random') fc.configureGlobal({ seed: requested ? Number(requested) : 20261129 });

export { fc };
