// esbuild bundles imported stylesheets into the build's CSS file.
declare module "*.css";
