// Run first by every npm script that starts something (npm start, npm run build, the operator
// commands): stops with a plain sentence when this Node.js is older than the one the service needs.
// CommonJS in the oldest syntax on purpose, so that any old Node.js can read this file and say so,
// rather than failing on the service's own code with a syntax error or, worse, running wrongly.
'use strict';

var fs = require('fs');
var path = require('path');

/** The major version the service needs: the repository's .nvmrc (24). */
function neededMajor() {
  return Number(fs.readFileSync(path.join(__dirname, '..', '.nvmrc'), 'utf8').trim());
}

/** The sentence to print for Node.js `version` (as process.version gives it), or null when it will do. */
function nodeVersionProblem(version, needed) {
  var major = Number(String(version).replace(/^v/, '').split('.')[0]);
  if (major >= needed) return null;
  return (
    'This service needs Node.js ' + needed + ' or newer, and this is Node.js ' + String(version).replace(/^v/, '') + '. ' +
    'Install Node.js ' + needed + ' from https://nodejs.org/en/download, or with nvm run "nvm install" in this folder ' +
    '(it reads .nvmrc); then run the command again.'
  );
}

module.exports = { nodeVersionProblem: nodeVersionProblem, neededMajor: neededMajor };

if (require.main === module) {
  var problem = nodeVersionProblem(process.version, neededMajor());
  if (problem) {
    process.stderr.write(problem + '\n');
    process.exit(1);
  }
}
