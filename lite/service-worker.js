// The course site's service worker: every file of the site kept in the browser on the first visit,
// so that the course opens, saves and runs with the server gone. lite/build.py writes the site's
// version and its file list into the two lines below (this file replaces JupyterLite's own, at the
// address JupyterLite registers, and also does the one job of that one: it carries Python's file
// requests to the page, which answers them from the browser's storage).
const VERSION = "__VERSION__";
const FILES = __FILES__;

const CACHE = `attention-site-${VERSION}`;
const CHANNEL = new BroadcastChannel("/sw-api.v1"); // the page's end: JupyterLite's contents
const ADDRESSES = new Set(FILES.map((file) => new URL(file, location).href));

// Installing. On the first visit the worker takes over at once and keeps the site's files
// afterwards (keepEverything): the notebook's kernel reads the learner's files through this worker,
// so it must not wait the seconds a whole site takes to fetch. A republished site's worker keeps
// every file of its version first, so that the older one serves until it can serve everything.
self.addEventListener("install", (event) => {
  const first = !self.registration.active;
  event.waitUntil(first ? self.skipWaiting() : keepEverything().then(() => self.skipWaiting()));
});

// Taking over: the pages open now, and no cache of an older version is kept.
self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      const old = names.filter((n) => n.startsWith("attention-site-") && n !== CACHE);
      await Promise.all(old.map((n) => caches.delete(n)));
      await self.clients.claim();
    })(),
  );
  keepEverything();
});

// Every file of this version in the cache, a few at a time (the page and its kernel load
// meanwhile), each fetched once: a worker stopped halfway goes on where it stopped when it runs
// again. Settles once all are kept.
let keeping = null;
const KEPT_ALL = "attention-site-kept-all"; // in the cache once it holds every file: a worker
// started again (the browser stops an idle one) then need not look up 600 files at every visit
function keepEverything() {
  keeping ??= (async () => {
    const cache = await caches.open(CACHE);
    if (await cache.match(KEPT_ALL)) return;
    const queue = [...ADDRESSES];
    const fetchOne = async () => {
      for (let address = queue.shift(); address !== undefined; address = queue.shift()) {
        await keepOne(cache, address);
      }
    };
    await Promise.all([fetchOne(), fetchOne(), fetchOne(), fetchOne()]);
    await cache.put(KEPT_ALL, new Response(VERSION));
  })().catch((error) => {
    keeping = null; // the next request tries again
    throw error;
  });
  return keeping;
}

// The landing page asks which version of the site serves it, to tell the learner of a newer one.
self.addEventListener("message", (event) => {
  if (event.data === "attention-site-version" && event.ports[0]) {
    event.ports[0].postMessage(VERSION);
  }
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== location.origin) {
    return; // nothing of the course is elsewhere: left to the browser
  }
  event.waitUntil(keepEverything().catch(() => {})); // alive until the whole site is kept
  if (url.pathname.endsWith("/api/service-worker-heartbeat")) {
    event.respondWith(new Response("ok"));
  } else if (url.pathname.includes("/api/drive") || url.pathname.includes("/api/stdin/")) {
    event.respondWith(askThePage(event.request, url));
  } else if (event.request.method === "GET") {
    event.respondWith(fromTheSite(event.request));
  }
});

// A file of the site: the kept copy (the address without its ?query names the file), else the
// network. The copy is looked up by that address, not with ignoreSearch, which has the browser
// read through every kept address for each request.
//
// A file of the site not kept yet (a first visit) is kept first and then served from the cache,
// not from the network: Chrome keeps the compiled code of a script beside its copy in the cache
// when the script first runs from there, so the return visit starts without compiling the lab.
let opened = null;
async function fromTheSite(request) {
  opened ??= caches.open(CACHE);
  const cache = await opened;
  const url = new URL(request.url);
  const address = url.origin + url.pathname;
  if (!ADDRESSES.has(address)) {
    return fetch(request); // no file of the site: never kept
  }
  const kept = await cache.match(address);
  if (kept) {
    return asServed(kept);
  }
  try {
    await keepOne(cache, address);
  } catch {
    return fetch(request); // not kept (the server said no, or is gone): the network's answer
  }
  const justKept = await cache.match(address);
  return justKept ? asServed(justKept) : fetch(request);
}

// A kept copy as the page may take it: a copy the server reached through a redirect (a host that
// sends lab/index.html on to lab/) is marked so, and the browser refuses such an answer to a page
// load; the same body and headers, unmarked, it takes.
function asServed(kept) {
  return kept.redirected ? new Response(kept.body, kept) : kept;
}

// One file of the site into the cache, fetched once however many ask for it at the same time.
const keepingOne = new Map();
function keepOne(cache, address) {
  if (!keepingOne.has(address)) {
    const kept = (async () => {
      if (!(await cache.match(address))) {
        // asked of the server, not taken from the browser's HTTP cache unasked: an address
        // whose file a republished site changed (lab/index.html) must not keep the older one
        await cache.add(new Request(address, { cache: "no-cache" }));
      }
    })().finally(() => keepingOne.delete(address));
    keepingOne.set(address, kept);
  }
  return keepingOne.get(address);
}

// Python's request for a file of the learner's (or for input()): handed to the page that opened
// the kernel, whose answer comes back on the same channel with the same ids.
async function askThePage(request, url) {
  const message = await request.json();
  message.requestId = message.requestId || crypto.randomUUID();
  message.pathname = url.pathname;
  const answer = new Promise((resolve) => {
    const listen = (event) => {
      const reply = event.data;
      if (
        reply.browsingContextId === message.browsingContextId &&
        reply.requestId === message.requestId
      ) {
        CHANNEL.removeEventListener("message", listen);
        resolve(new Response(JSON.stringify(reply.response)));
      }
    };
    CHANNEL.addEventListener("message", listen);
  });
  CHANNEL.postMessage(message);
  return answer;
}
