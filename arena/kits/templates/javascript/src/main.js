#!/usr/bin/env node
'use strict';
// Starts the bot: the protocol client with the strategy of src/strategy.js. run.sh runs this.

const { Client } = require('./client');
const { NAME, VERSION, Strategy } = require('./strategy');

new Client(NAME, VERSION, (info, rng) => new Strategy(info, rng)).run().then(() => process.exit(0));
