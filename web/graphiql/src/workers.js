// Monaco (GraphiQL's editor) runs its language services in web workers. build.mjs bundles
// each worker into its own file next to this bundle and passes their names in __WORKERS__,
// so they load from this server like every other asset (never from a CDN).

/* global __WORKERS__ */
const workers = __WORKERS__;

function workerUrl(name) {
  return new URL(workers[name], import.meta.url);
}

globalThis.MonacoEnvironment = {
  getWorker(_workerId, label) {
    if (label === "json") return new Worker(workerUrl("json"));
    if (label === "graphql") return new Worker(workerUrl("graphql"));
    return new Worker(workerUrl("editor"));
  },
};
