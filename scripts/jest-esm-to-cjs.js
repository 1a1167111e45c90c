// NestJS 12 and some of its companions ship only as ES modules. Node 20.19+
// loads them from our CommonJS build through require(esm), but jest's module
// runtime cannot before Node 24.9, so under jest those packages are compiled
// to CommonJS here (see docs/decisions/0002-commonjs-with-esm-dependencies.md).
const { createHash } = require('node:crypto');
const ts = require('typescript');

module.exports = {
  process(source, filename) {
    const withoutImportMeta = source.replace(/\bimport\.meta\.url\b/g, "require('node:url').pathToFileURL(__filename).href");
    const { outputText } = ts.transpileModule(withoutImportMeta, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, allowJs: true, esModuleInterop: true },
    });
    return { code: outputText };
  },
  getCacheKey(source, filename) {
    return createHash('sha256').update(ts.version).update('\0').update(filename).update('\0').update(source).digest('hex');
  },
};
