// A mocha reporter for finding where the suite's time goes: the spec output, plus a JSON file
// (--reporter-option output=FILE, default test-timings.json) with every test's and every hook's duration
// and, per file, the time its tests and hooks took (busy) and when its last result arrived after the
// run began (done). npm test -- --reporter tools/mocha-timing-reporter.cjs --reporter-option output=/tmp/t.json
// Durations are mocha's own, so they hold in a parallel run too, where a worker's results arrive
// together once its file ends (done is then when the file ended).
const Mocha = require('mocha');
const fs = require('fs');
const { EVENT_RUN_BEGIN, EVENT_RUN_END, EVENT_HOOK_END, EVENT_TEST_FAIL, EVENT_TEST_PASS } = Mocha.Runner.constants;
class Timing extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const out = (options.reporterOptions && options.reporterOptions.output) || 'test-timings.json';
    const rows = [];
    const files = new Map();
    let began = Date.now();
    const count = (file, ms) => {
      if (!file) return;
      const f = files.get(file) ?? { busy: 0, done: 0 };
      f.busy += ms || 0;
      f.done = Date.now() - began;
      files.set(file, f);
    };
    runner.once(EVENT_RUN_BEGIN, () => (began = Date.now()));
    runner.on(EVENT_HOOK_END, (h) => {
      const file = h.file || (h.parent && h.parent.file);
      rows.push({ kind: 'hook', title: h.fullTitle(), file, ms: h.duration });
      count(file, h.duration);
    });
    runner.on(EVENT_TEST_PASS, (t) => {
      rows.push({ kind: 'test', title: t.fullTitle(), file: t.file, ms: t.duration, state: 'passed' });
      count(t.file, t.duration);
    });
    runner.on(EVENT_TEST_FAIL, (t, err) => {
      rows.push({ kind: t.type === 'hook' ? 'hookfail' : 'test', title: t.fullTitle(), file: t.file, ms: t.duration, state: 'failed', err: String(err && err.message).slice(0, 300) });
      count(t.file, t.duration);
    });
    runner.once(EVENT_RUN_END, () => {
      const perFile = [...files].map(([file, f]) => ({ file, ms: f.busy, doneMs: f.done })).sort((a, b) => b.ms - a.ms);
      fs.writeFileSync(out, JSON.stringify({ wallMs: Date.now() - began, perFile, rows }, null, 1));
    });
  }
}
module.exports = Timing;
