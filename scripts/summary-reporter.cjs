// Mocha reporter: the usual spec output, plus the counts and the failed tests' titles written as JSON
// to $ACP_TEST_SUMMARY_FILE (scripts/test.mjs adds them up across tiers for its final
// "tests: N passed, M failed" line, and repeats the failures just above it, where a log's tail shows them).
'use strict';
const fs = require('node:fs');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

/** The start of a failure's message on one line (assert's diffs take several), kept short. */
function firstLines(error) {
  const lines = String((error && error.message) || error || '').split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const text = lines.slice(0, 4).join(' / ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failed = [];
    runner.on(EVENT_TEST_FAIL, (test, error) => {
      failed.push(`${test.fullTitle()}: ${firstLines(error)}`);
    });
    runner.once(EVENT_RUN_END, () => {
      const file = process.env.ACP_TEST_SUMMARY_FILE;
      if (!file) return;
      const { passes, failures, pending } = runner.stats ?? this.stats;
      fs.writeFileSync(file, JSON.stringify({ passes, failures, pending, failed }));
    });
  }
}

module.exports = SummaryReporter;
