/**
 * Every option of a simulation, once: name, type, unit, default, range, where it applies, CLI
 * flag and help. Validation (src/integrators/options.ts), the CLI's parser and `--help`
 * (src/cli/), and the README's option table (`npm run docs`, pinned by test/options.test.ts) are
 * generated from it.
 */
import { INTEGRATOR_NAMES } from './catalog.ts';
import type { OptionSpec } from './option-spec.ts';
import { EXPLICIT_INTEGRATOR_NAMES } from './schemes.ts';

const ALL = { integrators: 'all', backends: 'all' } as const;
const on = (...integrators: string[]): OptionSpec['appliesTo'] => ({ integrators, backends: 'all' });
const gpu = (...integrators: string[]): OptionSpec['appliesTo'] => ({ integrators, backends: ['webgpu'] });
const FIXED_STEP = ['explicit', 'implicit', 'multistep'];
const NEWTON = ['backward-euler', 'variational-symplectic-implicit'];
const VIE = 'velocity-implicit-euler';
const POSITIVE = { min: 0, minOpen: true } as const;
const NON_NEGATIVE = { min: 0 } as const;
const FRACTION = { min: 0, minOpen: true, max: 1, maxOpen: true } as const;
const COUNT = { integer: true, min: 1 } as const;

// One row per option, kept on one line each so that the table reads as a table.
// prettier-ignore
export const OPTIONS: readonly OptionSpec[] = [
  // What runs, where.
  { name: 'integrator', type: 'choice', unit: '', choices: INTEGRATOR_NAMES, appliesTo: ALL, flag: 'integrator', help: 'The integrator (README, "Integrators").' },
  { name: 'backend', type: 'choice', unit: '', default: 'cpu', choices: ['cpu', 'webgpu'], appliesTo: ALL, flag: 'backend', help: "'cpu' (the float64 reference) or 'webgpu'." },
  { name: 'precision', type: 'choice', unit: '', default: 'f64', defaultText: "'f64' ('f32' on webgpu)", choices: ['f64', 'f32'], appliesTo: ALL, flag: 'precision', help: 'CPU storage precision; the WebGPU path is always f32 (WGSL has no f64).' },
  { name: 'dt', type: 'number', unit: 's', range: { min: 0, minOpen: true, max: 1e9 }, appliesTo: on(...FIXED_STEP), flag: 'dt', help: 'The step h (at most 1e9 s, so that the simulated time stays finite).' },
  { name: 'rayleighMass', type: 'number', unit: '1/s', default: 0, range: NON_NEGATIVE, appliesTo: ALL, flag: 'rayleigh-mass', help: 'Rayleigh mass damping r_m: the force −r_m M v.' },
  { name: 'rayleighStiffness', type: 'number', unit: 's', default: 0, range: NON_NEGATIVE, appliesTo: on('implicit'), flag: 'rayleigh-stiffness', help: 'Rayleigh stiffness damping r_k: the force −r_k K v (needs the stiffness matrix, which only the implicit integrators assemble).' },
  // WebGPU.
  { name: 'device', type: 'object', unit: '', defaultText: 'Weft requests one', appliesTo: { integrators: 'all', backends: ['webgpu'] }, flag: null, help: 'A GPUDevice of the caller’s, borrowed and never destroyed.' },
  { name: 'workgroupSize', type: 'number', unit: '', default: 64, range: COUNT, appliesTo: gpu('explicit', 'implicit', 'multistep'), flag: null, help: 'Threads per workgroup (a power of two for the implicit kernels’ reductions).' },
  { name: 'stepsPerSubmit', type: 'number', unit: '', defaultText: '64 (explicit, multistep), 4 (implicit)', range: COUNT, appliesTo: gpu('explicit', 'implicit', 'multistep'), flag: null, help: 'Steps encoded into one command buffer.' },
  { name: 'checkEvery', type: 'number', unit: '', default: 8, range: { integer: true, min: 0 }, appliesTo: gpu('implicit'), flag: 'check-every', help: 'advance(): read convergence back every k linear-solver iterations and skip what is no longer needed; 0 never (step() never does).' },
  { name: 'fused', type: 'boolean', unit: '', defaultText: 'true up to 1,024 particles where the program allows', appliesTo: gpu('adaptive'), flag: null, help: 'Run the step-size controller on the GPU: many attempted steps per dispatch of one workgroup (shaders/fused-adaptive.wgsl), one readback per submission; false: a dispatch per op and a readback per attempted step. Programs with solver jacobi or multigrid, and models with colliders, strain limits, bending or wind, have no fused form (true is then an error). Its kernel is generated per program and compiles once per device and program shape (2–9 s on SwiftShader).' },
  { name: 'profile', type: 'boolean', unit: '', default: false, appliesTo: gpu('explicit', 'implicit', 'multistep'), flag: null, help: "Time each kernel with timestamp queries (a compute pass per dispatch; the device needs 'timestamp-query', which Weft requests where the adapter has it); readProfile() gives GPU ms per kernel." },
  // Implicit integrators.
  { name: 'solver', type: 'choice', unit: '', default: 'auto', choices: ['auto', 'cg', 'pcg', 'jacobi', 'multigrid'], appliesTo: on('implicit'), flag: 'solver', help: "Linear solver: 'auto' (multigrid from 4,096 particles, where it wins, else pcg), conjugate gradient, CG preconditioned by the diagonal, block Jacobi, or CG preconditioned by an aggregation-multigrid V-cycle (iterations nearly independent of size, with contacts too); all matrix-free and filtered." },
  { name: 'preconditioner', type: 'choice', unit: '', default: 'block', choices: ['block', 'scalar'], appliesTo: on('implicit', VIE), flag: 'preconditioner', help: 'Diagonal of pcg and jacobi: 3×3 blocks or scalars.' },
  { name: 'warmStart', type: 'boolean', unit: '', default: false, appliesTo: on('implicit'), flag: 'warm-start', help: 'Start each linear solve from the last solution of the same solve (the previous step’s) instead of 0.' },
  { name: 'maxIterations', type: 'number', unit: '', default: 200, range: COUNT, appliesTo: on('implicit'), flag: 'max-iterations', help: 'Most linear-solver iterations per solve (a solve that stops there is counted unconverged).' },
  { name: 'tolerance', type: 'number', unit: '', default: 1e-5, range: FRACTION, appliesTo: on('implicit'), flag: 'tolerance', help: 'Relative residual ‖b − A x‖/‖b‖ at which a linear solve stops (f32: at least 1e-6).' },
  { name: 'jacobian', type: 'choice', unit: '', default: 'clamped', choices: ['clamped', 'exact'], appliesTo: on('implicit', VIE), flag: 'jacobian', help: "Spring stiffness Jacobian: 'clamped' drops compressed springs' geometric term (SPD, Choi & Ko 2002); 'exact' keeps it." },
  { name: 'newtonIterations', type: 'number', unit: '', default: 10, range: COUNT, appliesTo: on(...NEWTON), flag: 'newton-iterations', help: 'Most Newton iterations per step.' },
  { name: 'correctionTolerance', type: 'number', unit: '', default: 1e-4, appliesTo: on('backward-euler'), flag: 'correction-tolerance', help: 'Newton stops when ‖δa‖ ≤ tol ‖Σ δa‖ (≤ 0 disables).' },
  { name: 'residualTolerance', type: 'number', unit: '', default: 1e-4, appliesTo: on('backward-euler'), flag: 'residual-tolerance', help: 'Newton stops when ‖R‖ ≤ tol ‖R₁‖ (≤ 0 disables).' },
  { name: 'absoluteResidualTolerance', type: 'number', unit: 'N', default: 1e-15, appliesTo: on('backward-euler'), flag: 'absolute-residual-tolerance', help: 'Newton stops when ‖R‖ ≤ tol (≤ 0 disables).' },
  { name: 'newtonError', type: 'number', unit: '', default: 1e-5, range: NON_NEGATIVE, appliesTo: on('variational-symplectic-implicit'), flag: 'newton-error', help: 'Newton stops when ‖q_i − q_{i−1}‖/‖q₀‖ ≤ newtonError.' },
  { name: 'newmarkGamma', type: 'number', unit: '', default: 0.5, range: { min: 0, max: 1 }, appliesTo: on('newmark'), flag: 'newmark-gamma', help: 'Newmark γ.' },
  { name: 'newmarkBeta', type: 'number', unit: '', default: 0.25, range: { min: 0, max: 0.5 }, appliesTo: on('newmark'), flag: 'newmark-beta', help: 'Newmark β.' },
  { name: 'staticFriction', type: 'boolean', unit: '', default: true, appliesTo: on('implicit'), flag: 'static-friction', help: 'With colliders: a contact sticks (held in all three directions inside the solve) while its constraint force is inside the friction cone, and slides with friction applied after the solve beyond it; false: friction only after the solve.' },
  // Multistep predictor–correctors.
  { name: 'correctorTolerance', type: 'number', unit: 'm, m/s', default: 1e-10, defaultText: '1e-10 (1e-5 in f32 and on webgpu)', range: POSITIVE, appliesTo: on('adams-moulton-pc', 'heun-implicit', 'implicit-euler-pc'), flag: 'corrector-tolerance', help: 'Corrector stops when max |y⁽ᵏ⁺¹⁾ − y⁽ᵏ⁾| / (tol + tol max(|y|, |y⁽ᵏ⁺¹⁾|)) ≤ 1 (float32 reaches about 1e-6 at best).' },
  { name: 'maxCorrectorIterations', type: 'number', unit: '', defaultText: '1 (adams-moulton-pc: PECE), 50', range: COUNT, appliesTo: on('adams-moulton-pc', 'heun-implicit', 'implicit-euler-pc'), flag: 'max-corrector-iterations', help: 'Most corrector iterations per step.' },
  // Adaptive integrators.
  { name: 'errorControl', type: 'choice', unit: '', defaultText: "'drake' (velocity-implicit-euler), 'hairer'", choices: ['drake', 'hairer'], appliesTo: on('adaptive'), flag: 'error-control', help: "What accuracy means. 'drake' (IntegratorBase): a step is accepted when ‖w e‖∞ ≤ accuracy (positions in m and velocities in m/s alike) and Drake's step-size rules apply; 'hairer': ‖e/sc‖ ≤ 1 with sc = a + r max(|y|, |ŷ|)." },
  { name: 'accuracy', type: 'number', unit: '', default: 1e-4, range: FRACTION, appliesTo: on('adaptive'), flag: 'accuracy', help: "'hairer': relative tolerance r (sc = a + r max(|y|, |ŷ|)); 'drake': the bound on the weighted max norm of the error estimate (velocity-implicit-euler uses at most 0.5, as Drake)." },
  { name: 'absoluteTolerance', type: 'number', unit: 'm', defaultText: 'accuracy', range: POSITIVE, appliesTo: on('adaptive'), flag: 'absolute-tolerance', help: "Absolute tolerance a of positions (errorControl 'hairer')." },
  { name: 'velocityAbsoluteTolerance', type: 'number', unit: 'm/s', defaultText: 'absoluteTolerance', range: POSITIVE, appliesTo: on('adaptive'), flag: 'velocity-absolute-tolerance', help: "Absolute tolerance a of velocities (errorControl 'hairer')." },
  { name: 'positionWeight', type: 'number', unit: '', default: 1, range: NON_NEGATIVE, appliesTo: on('adaptive'), flag: 'position-weight', help: 'Weight of position errors in the norm (Drake).' },
  { name: 'velocityWeight', type: 'number', unit: '', default: 1, range: NON_NEGATIVE, appliesTo: on('adaptive'), flag: 'velocity-weight', help: 'Weight of velocity errors in the norm.' },
  { name: 'errorNorm', type: 'choice', unit: '', default: 'rms', choices: ['rms', 'max'], appliesTo: on('adaptive'), flag: 'error-norm', help: "Weighted root mean square (Hairer) or maximum over free particles’ components (errorControl 'hairer'; 'drake' takes the maximum)." },
  { name: 'minStep', type: 'number', unit: 's', default: 1e-10, range: POSITIVE, appliesTo: on('adaptive'), flag: 'min-step', help: 'Smallest step; a step there above the accuracy is accepted and counted (see onMinStep).' },
  { name: 'maxStep', type: 'number', unit: 's', default: Infinity, range: { ...POSITIVE, infinite: true }, appliesTo: on('adaptive'), flag: 'max-step', help: 'Largest step (the last one is clipped to land on the target time).' },
  { name: 'initialStep', type: 'number', unit: 's', defaultText: "maxStep if finite ('drake'), else Hairer’s estimate", range: POSITIVE, appliesTo: on('adaptive'), flag: 'initial-step', help: 'First step tried, in [minStep, maxStep].' },
  { name: 'safetyFactor', type: 'number', unit: '', default: 0.9, range: { min: 0, minOpen: true, max: 1 }, appliesTo: on('adaptive'), flag: 'safety-factor', help: 'Safety factor of the step proposal h · safety · e^(−1/q).' },
  { name: 'growthLimit', type: 'number', unit: '', default: 5, range: { min: 1, minOpen: true }, appliesTo: on('adaptive'), flag: 'growth-limit', help: 'Largest ratio of a new step to the last.' },
  { name: 'shrinkLimit', type: 'number', unit: '', default: 0.1, range: FRACTION, appliesTo: on('adaptive'), flag: 'shrink-limit', help: 'Smallest ratio of a new step to the last on error-control shrinkage.' },
  { name: 'newtonFailureShrink', type: 'number', unit: '', default: 0.5, range: FRACTION, appliesTo: on('adaptive'), flag: 'newton-failure-shrink', help: 'Ratio applied to the step after a Newton failure.' },
  { name: 'onMinStep', type: 'choice', unit: '', default: 'accept', choices: ['accept', 'throw'], appliesTo: on('adaptive'), flag: 'on-min-step', help: "At minStep with the error above the accuracy: accept and count it, or throw WeftStepSizeError ('drake': as soon as the controller wants a step below minStep)." },
  { name: 'scheme', type: 'choice', unit: '', default: 'heun', choices: EXPLICIT_INTEGRATOR_NAMES, appliesTo: on('step-doubling'), flag: 'scheme', help: 'The explicit scheme step doubling doubles.' },
  { name: 'extrapolate', type: 'boolean', unit: '', default: false, appliesTo: on('step-doubling'), flag: 'extrapolate', help: 'Propagate the Richardson extrapolation y½ + (y½ − y₁)/(2^p − 1) (order p + 1).' },
  { name: 'maxNewtonIterations', type: 'number', unit: '', default: 10, range: COUNT, appliesTo: on(VIE), flag: 'max-newton-iterations', help: 'Most Newton iterations per solve (Drake).' },
  { name: 'reuseJacobian', type: 'boolean', unit: '', default: true, appliesTo: on(VIE), flag: 'reuse-jacobian', help: 'Reuse K and B across Newton solves and steps until Newton fails with them (Drake).' },
  { name: 'fullNewton', type: 'boolean', unit: '', default: false, appliesTo: on(VIE), flag: 'full-newton', help: 'A fresh Jacobian and iteration matrix at every Newton iteration.' },
  { name: 'newtonKappa', type: 'number', unit: '', default: 0.05, range: { min: 0, minOpen: true, max: 1 }, appliesTo: on(VIE), flag: 'newton-kappa', help: 'κ of the convergence test η ‖Δ‖ ≤ κ (Hairer IV.8.10; Drake).' },
  { name: 'linearTolerance', type: 'number', unit: '', default: 1e-10, defaultText: '1e-10 (1e-5 in f32)', range: FRACTION, appliesTo: on(VIE), flag: 'linear-tolerance', help: 'Relative residual of each PCG solve.' },
  { name: 'linearMaxIterations', type: 'number', unit: '', default: 1000, range: COUNT, appliesTo: on(VIE), flag: 'linear-max-iterations', help: 'Most PCG iterations per solve.' },
];

/** The table by option name. */
export const OPTION_SPECS: ReadonlyMap<string, OptionSpec> = new Map(
  OPTIONS.map((spec) => [spec.name, spec]),
);

/** The row of a known option (an internal error for an unknown name: the table is the source). */
export function spec(name: string): OptionSpec {
  const found = OPTION_SPECS.get(name);
  if (!found) throw new Error(`no option '${name}' in the options table`);
  return found;
}
