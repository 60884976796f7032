// Bundle the GraphiQL page into kenning/graphiql/static/ (served by kenning/graphiql/):
// Monaco's three workers, the page's JS and CSS (names hashed, so browsers may cache them
// for good), a gzip copy of each, and manifest.json naming the files the HTML page loads.
// Fails if anything would load from another host: the page must work offline.
//
//   npm ci && npm run build      (scripts/install.sh runs both when the sources change)

import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.resolve(here, "../../kenning/graphiql/static");

const WORKERS = {
  editor: "monaco-editor/esm/vs/editor/editor.worker.js",
  json: "monaco-editor/esm/vs/language/json/json.worker.js",
  graphql: "monaco-graphql/esm/graphql.worker.js",
};

const common = {
  absWorkingDir: here,
  bundle: true,
  minify: true,
  legalComments: "linked",
  target: ["es2022"],
  outdir,
  write: false,
  logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
};

async function writeOutputs(result) {
  for (const file of result.outputFiles) {
    await writeFile(file.path, file.contents);
  }
  return result.outputFiles.map((file) => path.basename(file.path));
}

// Workers are classic scripts (IIFE): every browser starts those, module workers or not.
async function buildWorkers() {
  const entryPoints = Object.fromEntries(
    Object.entries(WORKERS).map(([name, entry]) => [`${name}.worker`, entry]),
  );
  const result = await esbuild.build({
    ...common,
    entryPoints,
    format: "iife",
    entryNames: "[name]-[hash]",
    legalComments: "none",
  });
  const files = await writeOutputs(result);
  const named = (name) => files.find((file) => file.startsWith(`${name}.worker-`));
  return Object.fromEntries(Object.keys(WORKERS).map((name) => [name, named(name)]));
}

async function buildPage(workers) {
  const result = await esbuild.build({
    ...common,
    entryPoints: { graphiql: "src/main.jsx" },
    format: "esm",
    jsx: "automatic",
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    loader: { ".ttf": "file", ".woff": "file", ".woff2": "file", ".svg": "dataurl" },
    define: { ...common.define, __WORKERS__: JSON.stringify(workers) },
  });
  const files = await writeOutputs(result);
  const pick = (suffix) =>
    files.find((name) => name.startsWith("graphiql-") && name.endsWith(suffix));
  return { js: pick(".js"), css: pick(".css") };
}

// Anything fetched from another host breaks the page offline; licence texts may name URLs.
async function refuseRemoteLoads() {
  const remote =
    /(?:url\(\s*["']?|@import\s+["']?|import\(\s*["']|from\s*["']|src=["'])(?:https?:)?\/\//;
  for (const name of await readdir(outdir)) {
    if (!/\.(js|css)$/.test(name)) continue;
    const text = await readFile(path.join(outdir, name), "utf8");
    const match = remote.exec(text);
    if (match) {
      const around = text.slice(Math.max(0, match.index - 80), match.index + 120);
      throw new Error(`${name} loads from another host: …${around}…`);
    }
  }
}

// Sent to browsers that accept gzip: a quarter of the bytes, no compression per request.
async function precompress() {
  for (const name of await readdir(outdir)) {
    if (!/\.(js|css|ttf)$/.test(name)) continue;
    const contents = await readFile(path.join(outdir, name));
    await writeFile(path.join(outdir, `${name}.gz`), gzipSync(contents, { level: 9 }));
  }
}

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
const workers = await buildWorkers();
const page = await buildPage(workers);
await refuseRemoteLoads();
await precompress();
const manifest = { ...page, workers };
await writeFile(path.join(outdir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`GraphiQL built into ${path.relative(path.resolve(here, "../.."), outdir)}: ${page.js}`);
