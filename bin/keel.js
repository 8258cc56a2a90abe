#!/usr/bin/env node
// The `keel` command of the installed package: the bundled server and its operator commands.
require('../dist/bundle/main.js');
