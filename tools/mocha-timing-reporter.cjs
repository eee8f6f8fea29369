// A mocha reporter for finding where the suite's time goes: the spec output, plus a JSON file
// (--reporter-option output=FILE, default test-timings.json) with every test's and every hook's duration
// and each file's wall time. npx mocha --reporter tools/mocha-timing-reporter.cjs --reporter-option output=/tmp/t.json
const Mocha = require('mocha');
const fs = require('fs');
const { EVENT_RUN_END, EVENT_HOOK_BEGIN, EVENT_HOOK_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_FAIL, EVENT_TEST_PASS } = Mocha.Runner.constants;
class Timing extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const out = (options.reporterOptions && options.reporterOptions.output) || 'test-timings.json';
    const rows = [];
    const hookStart = new Map();
    const suiteStart = new Map();
    const files = new Map();
    runner.on(EVENT_HOOK_BEGIN, (h) => hookStart.set(h, Date.now()));
    runner.on(EVENT_HOOK_END, (h) => {
      const ms = Date.now() - hookStart.get(h);
      rows.push({ kind: 'hook', title: h.fullTitle(), file: h.file || (h.parent && h.parent.file), ms });
    });
    runner.on(EVENT_TEST_PASS, (t) => rows.push({ kind: 'test', title: t.fullTitle(), file: t.file, ms: t.duration, state: 'passed' }));
    runner.on(EVENT_TEST_FAIL, (t, err) => rows.push({ kind: t.type === 'hook' ? 'hookfail' : 'test', title: t.fullTitle(), file: t.file, ms: t.duration, state: 'failed', err: String(err && err.message).slice(0, 300) }));
    runner.on(EVENT_SUITE_BEGIN, (s) => { if (s.file) { if (!files.has(s.file)) files.set(s.file, { start: Date.now() }); } });
    runner.on(EVENT_SUITE_END, (s) => { if (s.file && files.has(s.file)) files.get(s.file).end = Date.now(); });
    runner.once(EVENT_RUN_END, () => {
      const perFile = [...files].map(([f, v]) => ({ file: f, ms: (v.end || Date.now()) - v.start }));
      fs.writeFileSync(out, JSON.stringify({ rows, perFile }, null, 1));
    });
  }
}
module.exports = Timing;
