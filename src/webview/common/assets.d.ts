/** Stylesheets are bundled by esbuild (the `css` loader); importing one has no value in code. */
declare module '*.css';
