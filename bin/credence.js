#!/usr/bin/env node
// The installed command runs the compiled service (npm install builds dist/ through the prepare script).
// better-sqlite3 13 is a Node-API addon for Node 22 and newer: on an older runtime it crashes while loading, so say
// what to do before importing anything. `npm start`, `npm test` and `npx credence` run on the Node 24 that
// `npm install` brought (the `node` package), whatever the system's Node is.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `credence needs Node 22 or newer (this is ${process.version}). Run it through npm (npm start, npx credence), ` +
      'which uses the Node 24 that npm install put in node_modules/.bin, or install Node 24 LTS.',
  );
  process.exit(1);
}
await import('../dist/main.js');
