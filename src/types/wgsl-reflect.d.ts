// wgsl_reflect's "main" is CommonJS inside a "type": "module" package, which Node refuses; its ES
// module build works everywhere, so Weft imports that file directly. Its types are the package's.
declare module 'wgsl_reflect/wgsl_reflect.module.js' {
  export * from 'wgsl_reflect';
}
