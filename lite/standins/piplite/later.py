"""The site's packages that the kernel does not unpack as it starts, unpacked when first imported.

The site's lock lists every wheel it serves; the kernel loads only those its start names
(lite/build.py's LATER are left out: those only a Tab completion, IPython's terminal or
%matplotlib imports). IPython asks whether jedi is there as it starts, without importing it, so
this finder says yes; the first import of a package left out then fetches its wheel from the
site, checks it against the lock's digest and unpacks it, once. Each waits for its own first
import: jedi's does not unpack prompt_toolkit.
"""

import hashlib
import importlib.abc
import importlib.machinery
import io
import sys
import sysconfig
import zipfile


def fetched(url):
    """The bytes at url. The kernel runs in a Web Worker, where a synchronous request may return
    binary, so an import can wait for it."""
    from js import XMLHttpRequest

    request = XMLHttpRequest.new()
    request.open("GET", url, False)
    request.responseType = "arraybuffer"
    request.send(None)
    if request.status != 200:
        raise ImportError(f"{url}: the site answered {request.status}")
    return request.response.to_bytes()


def site_lock():
    """(the site's package folder URL, {package: lock entry}) of the Pyodide running here."""
    import pyodide_js

    packages = pyodide_js._api.lockfile_packages.to_py()
    return str(pyodide_js._api.config.indexURL), packages


def not_loaded(packages):
    """{import name: lock entry} of the lock's packages the kernel has not loaded."""
    import pyodide_js

    loaded = set(pyodide_js.loadedPackages.to_py())
    return {
        name: entry
        for package, entry in packages.items()
        if package not in loaded
        for name in entry["imports"]
    }


class OnFirstImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the packages not unpacked yet, and unpacks each at its own first import."""

    def __init__(self, waiting, index, fetch=fetched, target=None):
        self.waiting, self.index, self.fetch = waiting, index, fetch
        self.target = target or sysconfig.get_paths()["purelib"]

    def find_spec(self, name, path=None, target=None):
        """A spec of ours for a package still waiting; None for anything else."""
        if name in self.waiting:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def unpack(self, name):
        """Fetch, check and unpack the wheel that holds `name`; the names it holds wait no more."""
        wheel = self.waiting[name]["file_name"]
        data = self.fetch(self.index + wheel)
        if hashlib.sha256(data).hexdigest() != self.waiting[name]["sha256"]:
            raise ImportError(f"{wheel}: not the wheel the site's lock names")
        zipfile.ZipFile(io.BytesIO(data)).extractall(self.target)
        self.waiting = {n: e for n, e in self.waiting.items() if e["file_name"] != wheel}
        importlib.invalidate_caches()

    def create_module(self, spec):
        """Unpack first; Python then makes the module as usual."""
        if spec.name in self.waiting:
            self.unpack(spec.name)
        return None

    def exec_module(self, module):
        """Run the unpacked package's own __init__, with its own spec, path and file."""
        real = importlib.machinery.PathFinder.find_spec(module.__name__)
        if real is None:
            raise ImportError(f"{module.__name__} is not in the wheels the site serves")
        module.__spec__, module.__loader__ = real, real.loader
        module.__path__, module.__file__ = real.submodule_search_locations, real.origin
        real.loader.exec_module(module)


def wait_for_first_import():
    """Put the finder first on sys.meta_path (once) for the lock's packages not loaded."""
    if not any(isinstance(f, OnFirstImport) for f in sys.meta_path):
        index, packages = site_lock()
        sys.meta_path.insert(0, OnFirstImport(not_loaded(packages), index))
