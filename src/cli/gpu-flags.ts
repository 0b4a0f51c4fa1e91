/**
 * The CLI's flags for Node's WebGPU, taken out of the arguments before a command parses its own:
 * `--gpu-backend vulkan|metal|d3d12` (Dawn's native backend) and `--verbose` (Dawn's warnings
 * about drivers it cannot use stay on stderr; bin/weft.js filters them out otherwise).
 */
import { WeftInputError } from '../core/errors.ts';
import { registerAdapterFinder } from '../backends/webgpu/device.ts';
import { checkDawnBackend, dawnAdapterFinder, platformDawnBackends } from '../backends/webgpu/dawn.ts';

/** `--backend`'s value in `args` (the last one given), if any. */
function backendFlag(args: readonly string[]): string | undefined {
  let value: string | undefined;
  args.forEach((arg, i) => {
    if (arg === '--backend') value = args[i + 1];
    else if (arg.startsWith('--backend=')) value = arg.slice('--backend='.length);
  });
  return value;
}

/**
 * `argv` without `--gpu-backend` and `--verbose`; registers Dawn on the backend chosen (default:
 * Metal on macOS, D3D12 on Windows, Vulkan elsewhere). A backend this platform lacks, or one given
 * to a command that runs on the CPU, is a {@link WeftInputError} naming `--gpu-backend`.
 */
export function takeGpuFlags(argv: readonly string[]): string[] {
  const rest: string[] = [];
  let chosen: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--verbose') continue;
    if (arg === '--gpu-backend' || arg.startsWith('--gpu-backend=')) {
      chosen = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (chosen === undefined || chosen === '' || chosen.startsWith('--'))
        throw new WeftInputError(
          '--gpu-backend',
          `needs a value (${platformDawnBackends().join(', ')} here)`,
        );
      continue;
    }
    rest.push(arg);
  }
  const backend = chosen === undefined ? undefined : checkDawnBackend('--gpu-backend', chosen);
  const [command, ...args] = rest;
  const onCpu = (command === 'run' || command === 'demo') && (backendFlag(args) ?? (command === 'demo' ? 'webgpu' : 'cpu')) === 'cpu'; // prettier-ignore
  if (backend !== undefined && onCpu)
    throw new WeftInputError('--gpu-backend', `applies to WebGPU (--backend webgpu, weft info); this weft ${command} is on the CPU`); // prettier-ignore
  registerAdapterFinder(dawnAdapterFinder(backend));
  return rest;
}
