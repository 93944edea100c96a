// Test aid: makes this Node process stall (busy, not responding) for STALL_MS every STALL_EVERY ms,
// like a loaded CI machine does. Load it into every Node process of a test run with
//   NODE_OPTIONS="--require /abs/path/scripts/stall.cjs" npm test
// Tests that race the clock fail this way; tests that wait for what they check do not.
'use strict';
const ms = Number(process.env.STALL_MS || 300);
const every = Number(process.env.STALL_EVERY || 900);
setInterval(() => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy on purpose
  }
}, every).unref();
