/**
 * Binding numbers and struct layouts, read from the WGSL with wgsl_reflect rather than counted
 * by hand; test/layout.test.ts pins them.
 */
import {
  WgslReflect,
  type FunctionInfo,
  type StructInfo,
  type TypeInfo,
} from 'wgsl_reflect/wgsl_reflect.module.js';

/** One `var<uniform>` or `var<storage>` of a kernel. */
export interface BindingLayout {
  readonly group: number;
  readonly binding: number;
  readonly kind: 'uniform' | 'storage';
  /** 'read', 'read_write' or '' for uniforms. */
  readonly access: string;
  /** Struct name for a uniform, element type for a storage array. */
  readonly typeName: string;
  /** Byte stride of a storage array's elements (0 for a uniform). */
  readonly stride: number;
}

/** Byte layout of a WGSL struct. */
export interface StructLayout {
  readonly name: string;
  readonly size: number;
  readonly members: ReadonlyMap<string, { offset: number; type: string }>;
}

/** What a kernel file declares, by name. */
export interface KernelLayout {
  readonly code: string;
  readonly entryPoint: string;
  readonly bindings: ReadonlyMap<string, BindingLayout>;
  /** The `override` constants the entry point uses. */
  readonly overrides: ReadonlySet<string>;
  readonly structs: ReadonlyMap<string, StructLayout>;
  /** Module-scope `const NAME: u32 = Nu;` declarations (mode numbers the host must use). */
  readonly constants: ReadonlyMap<string, number>;
}

function typeName(type: TypeInfo): string {
  const format = (type as { format?: TypeInfo | null }).format;
  return format ? `${type.name}<${typeName(format)}>` : type.name;
}

function structLayout(info: StructInfo): StructLayout {
  return {
    name: info.name,
    size: info.size,
    members: new Map(info.members.map((m) => [m.name, { offset: m.offset, type: typeName(m.type) }])),
  };
}

/** The `override` constants a function uses, directly or through the functions it calls. */
function overridesOf(fn: FunctionInfo, seen = new Set<FunctionInfo>()): Set<string> {
  const names = new Set(fn.overrides.map((o) => o.name));
  seen.add(fn);
  for (const called of fn.calls)
    if (!seen.has(called)) overridesOf(called, seen).forEach((name) => names.add(name));
  return names;
}

/** Reflects a kernel's source (common.wgsl already prepended); it must have one compute entry point. */
export function reflectKernel(code: string): KernelLayout {
  const reflect = new WgslReflect(code);
  const entry = reflect.entry.compute;
  if (entry.length !== 1)
    throw new Error(`a kernel needs exactly one compute entry point, found ${entry.length}`);
  // Only what the entry point uses (directly or through the functions it calls): pipelines are
  // made with layout 'auto', which leaves the other declarations out.
  const used = new Set(entry[0]!.resources.map((r) => r.name));
  const bindings = new Map<string, BindingLayout>();
  for (const v of reflect.uniforms.filter((u) => used.has(u.name))) {
    bindings.set(v.name, {
      group: v.group,
      binding: v.binding,
      kind: 'uniform',
      access: '',
      typeName: v.type.name,
      stride: 0,
    });
  }
  for (const v of reflect.storage.filter((u) => used.has(u.name))) {
    const array = v.type as { format?: TypeInfo; stride?: number };
    bindings.set(v.name, {
      group: v.group,
      binding: v.binding,
      kind: 'storage',
      access: v.access,
      typeName: array.format ? typeName(array.format) : v.type.name,
      stride: array.stride ?? 0,
    });
  }
  return {
    code,
    entryPoint: entry[0]!.name,
    bindings,
    overrides: overridesOf(entry[0]!),
    structs: new Map(reflect.structs.map((s) => [s.name, structLayout(s)])),
    // wgsl_reflect keeps constant values only in a private field: read the u32 ones directly.
    constants: new Map(
      [...code.matchAll(/^const\s+(\w+)\s*:\s*u32\s*=\s*(\d+)u\s*;/gm)].map((m) => [m[1]!, Number(m[2])]),
    ),
  };
}

/**
 * Writes one struct's fields into a DataView at the offsets the WGSL gives. Values are named
 * like the WGSL members; a missing or unknown member is an error, so the host and the shader
 * cannot drift apart silently.
 */
export function writeStruct(
  layout: StructLayout,
  values: Readonly<Record<string, number | readonly number[]>>,
  view: DataView,
  base = 0,
): void {
  for (const [name, member] of layout.members) {
    const value = values[name];
    if (value === undefined) throw new Error(`${layout.name}.${name} was not given a value`);
    const components = typeof value === 'number' ? [value] : value;
    const scalar = member.type.includes('<')
      ? member.type.slice(member.type.indexOf('<') + 1, -1)
      : member.type;
    components.forEach((component, c) => {
      const offset = base + member.offset + 4 * c;
      if (scalar === 'f32') view.setFloat32(offset, component, true);
      else if (scalar === 'u32') view.setUint32(offset, component, true);
      else if (scalar === 'i32') view.setInt32(offset, component, true);
      else throw new Error(`${layout.name}.${name}: cannot write type ${member.type}`);
    });
  }
  for (const name of Object.keys(values)) {
    if (!layout.members.has(name)) throw new Error(`${layout.name} has no member '${name}'`);
  }
}

/** A struct's bytes, rounded up to 16 bytes (the uniform-buffer alignment of a struct). */
export function structBytes(
  layout: StructLayout,
  values: Readonly<Record<string, number | readonly number[]>>,
): ArrayBuffer {
  const bytes = new ArrayBuffer(Math.ceil(layout.size / 16) * 16);
  writeStruct(layout, values, new DataView(bytes));
  return bytes;
}
