// NestJS 12 and some of its companions ship only as ES modules. Node 20.19+
// loads them from our CommonJS build through require(esm), but jest's module
// runtime cannot before Node 24.9, so under jest those packages are compiled
// to CommonJS here (see docs/decisions/0002-commonjs-with-esm-dependencies.md).
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const ts = require('typescript');

// Part of every cache key, so that editing this file invalidates jest's cache.
const ownSource = readFileSync(__filename, 'utf8');

module.exports = {
  process(source, filename) {
    const withoutImportMeta = source
      // An ES module's own `require`; CommonJS already has one, and redeclaring it is a syntax error.
      .replace(/^const require = createRequire\(import\.meta\.url\);$/m, '')
      .replace(/\bimport\.meta\.url\b/g, "require('node:url').pathToFileURL(__filename).href");
    const { outputText } = ts.transpileModule(withoutImportMeta, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, allowJs: true, esModuleInterop: true },
    });
    return { code: outputText };
  },
  getCacheKey(source, filename) {
    return createHash('sha256').update(ownSource).update(ts.version).update('\0').update(filename).update('\0').update(source).digest('hex');
  },
};
