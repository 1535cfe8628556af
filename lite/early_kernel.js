// The course site's one lab extension, written by hand (no build step): the kernel of the notebook
// that the page's address opens (?path=…ipynb, as the landing page's links do) starts as the app
// starts, while JupyterLab still lays out its window and reads the notebook, instead of after the
// notebook is shown. Measured on the 2-core machine (make bench-site), that is a second sooner.
//
// How the notebook finds that kernel: when its session starts it looks for a running session at
// its path and joins it (JupyterLab's SessionContext). So that it never starts a second one while
// the first is still starting, the session manager's startNew waits for the early start first.
// lite/build.py copies this file into the site as a federated extension's remoteEntry.js.
(function () {
  const NAME = "attention-early-kernel";
  const SPECS_WAIT_MS = 30_000; // the Pyodide kernel's spec is registered by another plugin

  // The path of the notebook the address opens, or null.
  function notebookInAddress() {
    const path = new URLSearchParams(window.location.search).get("path");
    return path && path.endsWith(".ipynb") ? path : null;
  }

  // The default kernel's name once a plugin has registered it (null after SPECS_WAIT_MS).
  async function defaultKernel(specs) {
    const deadline = Date.now() + SPECS_WAIT_MS;
    await specs.ready;
    while (!(specs.specs && specs.specs.kernelspecs[specs.specs.default])) {
      if (Date.now() > deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, 25));
      await specs.refreshSpecs();
    }
    return specs.specs.default;
  }

  // Start the session of the notebook at path (it must exist); resolves once it is started.
  async function startEarly(app, path, startNew) {
    await app.serviceManager.contents.get(path, { content: false });
    const kernel = await defaultKernel(app.serviceManager.kernelspecs);
    if (kernel === null) return;
    const name = path.split("/").pop();
    const session = await startNew({ path, name, type: "notebook", kernel: { name: kernel } });
    document.documentElement.dataset.earlyKernel = session.kernel.id; // (for a reader: the tests)
  }

  const plugin = {
    id: `${NAME}:plugin`,
    description: "Starts the kernel of the notebook in the page's address as the app starts",
    autoStart: true,
    activate: (app) => {
      const path = notebookInAddress();
      if (path === null) return;
      const sessions = app.serviceManager.sessions;
      const startNew = sessions.startNew.bind(sessions);
      const early = startEarly(app, path, startNew).catch((error) => {
        console.warn(`${NAME}: the notebook's kernel starts as usual`, error);
      });
      sessions.startNew = async (options, connectOptions) => {
        await early;
        await sessions.refreshRunning();
        const model = [...sessions.running()].find((m) => m.path === options.path);
        return model ? sessions.connectTo({ model }) : startNew(options, connectOptions);
      };
    },
  };

  // A module federation container, as JupyterLab's bootstrap loads one: it shares no modules.
  const containers = (window._JUPYTERLAB = window._JUPYTERLAB || {});
  containers[NAME] = {
    init: async () => {},
    get: async () => () => ({ __esModule: true, default: [plugin] }),
  };
})();
