import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

describe('the multi-root fixture workspace', () => {
  it('shows all three folders, in order', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.deepEqual(
      folders.map((f) => f.name),
      ['app', 'lib', 'docs'],
    );
    assert.ok(vscode.workspace.workspaceFile?.fsPath.endsWith('multi-root.code-workspace'));
  });

  it('has a symlink in lib/ that points outside every folder (for root-enforcement tests)', () => {
    const lib = vscode.workspace.workspaceFolders![1]!.uri.fsPath;
    const link = path.join(lib, 'outside-link');
    assert.ok(fs.lstatSync(link).isSymbolicLink());
    const target = fs.realpathSync(link);
    for (const folder of vscode.workspace.workspaceFolders!) {
      assert.ok(!target.startsWith(fs.realpathSync(folder.uri.fsPath) + path.sep), `${target} is outside ${folder.name}`);
    }
  });
});
