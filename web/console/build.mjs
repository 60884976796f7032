// Bundle the console into kenning/console/static/ (served by kenning/console/ at /console/):
// one ES module and one stylesheet with hashed names (browsers may cache them for good), a
// gzip copy of each, and manifest.json naming the two. Fails if anything would load from
// another host: the console must work offline. Prints the bundle's size, gzipped.
//
//   npm ci && npm run build      (scripts/install.sh runs both when the sources change)

import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.resolve(here, "../../kenning/console/static");

async function buildPage() {
  const result = await esbuild.build({
    absWorkingDir: here,
    entryPoints: { console: "src/main.tsx" },
    bundle: true,
    minify: true,
    legalComments: "linked",
    target: ["es2022"],
    format: "esm",
    jsx: "automatic",
    jsxImportSource: "preact",
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    outdir,
    write: false,
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  for (const file of result.outputFiles) {
    await writeFile(file.path, file.contents);
  }
  const files = result.outputFiles.map((file) => path.basename(file.path));
  const pick = (suffix) => files.find((name) => name.startsWith("console-") && name.endsWith(suffix));
  return { js: pick(".js"), css: pick(".css") };
}

// Anything fetched from another host breaks the console offline; licence texts may name URLs.
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

// Sent to browsers that accept gzip: no compression per request.
async function precompress() {
  const sizes = {};
  for (const name of await readdir(outdir)) {
    if (!/\.(js|css)$/.test(name)) continue;
    const packed = gzipSync(await readFile(path.join(outdir, name)), { level: 9 });
    await writeFile(path.join(outdir, `${name}.gz`), packed);
    sizes[name] = packed.length;
  }
  return sizes;
}

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
const page = await buildPage();
if (!page.js || !page.css) throw new Error(`the build wrote no console-*.js or .css: ${JSON.stringify(page)}`);
await refuseRemoteLoads();
const sizes = await precompress();
await writeFile(path.join(outdir, "manifest.json"), `${JSON.stringify(page, null, 2)}\n`);
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
console.log(
  `Console built into ${path.relative(path.resolve(here, "../.."), outdir)}: ` +
    `${page.js} (${kib(sizes[page.js])} gzipped), ${page.css} (${kib(sizes[page.css])} gzipped)`,
);
