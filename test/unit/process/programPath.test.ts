import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { findProgram } from '../../../src/process/programPath';

describe('programPath: finding a program on PATH', () => {
  it('takes the first PATH folder that has it, and a path with a folder as given', () => {
    const files = new Set(['/opt/b/npx', '/usr/bin/npx']);
    const isFile = (p: string) => files.has(p);
    assert.equal(findProgram('npx', { PATH: '/opt/a::/opt/b:/usr/bin' }, isFile, 'linux'), '/opt/b/npx');
    assert.equal(findProgram('uvx', { PATH: '/opt/b:/usr/bin' }, isFile, 'linux'), undefined);
    assert.equal(findProgram('./bin/agent', {}, isFile, 'linux'), path.resolve('./bin/agent'));
  });

  it('tries PATHEXT extensions on Windows, whatever the spelling of Path', () => {
    const files = new Set([path.join('C:\\node', 'npx.CMD')]);
    const found = findProgram('npx', { Path: 'C:\\tools;C:\\node', PATHEXT: '.EXE;.CMD' }, (p) => files.has(p), 'win32');
    assert.equal(found, path.join('C:\\node', 'npx.CMD'));
  });
});
