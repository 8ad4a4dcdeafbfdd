#!/usr/bin/env node
// The `pm` command (cli/package.json's `bin`): the CLI that `npm run build:cli` bundles into cli/dist/pm.mjs. A file of
// its own because npm links a package's bin while installing, before `prepare` has built the bundle: a bin naming
// the bundle itself would not be linked by `npm ci`.
import "../dist/pm.mjs";
