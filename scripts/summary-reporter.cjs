// Mocha reporter: the usual spec output, plus the counts written as JSON to $ACP_TEST_SUMMARY_FILE
// (scripts/test.mjs adds them up across tiers for its final "tests: N passed, M failed" line).
'use strict';
const fs = require('node:fs');
const Mocha = require('mocha');

const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const file = process.env.ACP_TEST_SUMMARY_FILE;
      if (!file) return;
      const { passes, failures, pending } = runner.stats ?? this.stats;
      fs.writeFileSync(file, JSON.stringify({ passes, failures, pending }));
    });
  }
}

module.exports = SummaryReporter;
