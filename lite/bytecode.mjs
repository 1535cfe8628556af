// make site's bytecode step (lite/build.py: compiled): Pyodide's own Python compiles each module the
// kernel imports as it starts, so that the browser's Python reads bytecode instead of compiling
// those modules on every page load (Pyodide ships them as source only).
//
//   node lite/bytecode.mjs PYODIDE_DIR OUT_DIR [PACKAGE ...]
//
// PYODIDE_DIR holds the site's runtime, wheels and pyodide-lock.json. Every package of the lock is
// loaded, the kernel and every module of each PACKAGE imported (the learner's checkpoints, whose
// modules the notebooks import one by one), and each module then in
// sys.modules whose source is the standard library's zip or site-packages is compiled to an
// unchecked hash-based .pyc (the source stays beside it, for tracebacks). OUT_DIR receives
// stdlib/<path>.pyc and site/<path>.pyc, and manifest.json: the cache tag and the paths.
import path from "node:path";
import { pathToFileURL } from "node:url";
import fs from "node:fs";

const [pyodideDir, outDir] = process.argv.slice(2, 4).map((p) => path.resolve(p));
const packages = process.argv.slice(4);
const lock = JSON.parse(fs.readFileSync(path.join(pyodideDir, "pyodide-lock.json"), "utf8"));
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({
  indexURL: pyodideDir + path.sep,
  packages: Object.keys(lock.packages),
  env: { HOME: "/home/pyodide", PYTHONDONTWRITEBYTECODE: "1" },
  messageCallback: () => {},
});
fs.mkdirSync(outDir, { recursive: true });
pyodide.FS.mkdirTree("/out");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: outDir }, "/out");
let manifest;
try {
  manifest = pyodide.runPython(`
import importlib, importlib.util, json, os, pkgutil, sys
from importlib._bootstrap_external import _code_to_hash_pyc

import pyodide_kernel  # noqa: F401  (what the kernel imports as it starts)
for name in ${JSON.stringify(packages)}:
    package = importlib.import_module(name)
    for found in pkgutil.walk_packages(package.__path__, name + "."):
        if not found.name.endswith(".__main__"):  # a command, run when imported
            importlib.import_module(found.name)

STDLIB = f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/"
SITE = next(p for p in sys.path if p.endswith("site-packages")) + "/"
written = []
for module in list(sys.modules.values()):
    source_path = getattr(module, "__file__", None) or ""
    if not hasattr(getattr(module, "__loader__", None), "get_data"):
        continue  # frozen into the runtime, or built in: bytecode already, or none
    for root, kind in ((STDLIB, "stdlib"), (SITE, "site")):
        if source_path.startswith(root) and source_path.endswith(".py"):
            source = module.__loader__.get_data(source_path)
            code = compile(source, source_path, "exec", dont_inherit=True)
            data = _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False)
            inside = source_path[len(root):]
            target = f"/out/{kind}/{inside}c"
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
            written.append(f"{kind}/{inside}c")
json.dumps({"cache_tag": sys.implementation.cache_tag, "compiled": sorted(written)})
`);
} catch (error) {
  console.error(`bytecode: Pyodide's Python failed: ${error.message}`);
  process.exit(1);
}
fs.writeFileSync(path.join(outDir, "manifest.json"), manifest);
