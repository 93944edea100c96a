import * as assert from 'node:assert/strict';
import type { McpServerConfig } from '../../../../src/acp/port/mcp';
import * as acp from '../../../../src/acp/schema';
import { v1McpServers } from '../../../../src/acp/v1/mcpServers';

describe('ACP v1: the port’s MCP server configurations in session setup', () => {
  it('sends each kind as v1’s McpServer, field for field (stdio without a type)', () => {
    const configs: McpServerConfig[] = [
      { name: 'files', command: 'npx', args: ['-y', 'server-files'], env: [{ name: 'TOKEN', value: 't' }] },
      { type: 'http', name: 'web', url: 'https://web.example/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
      { type: 'sse', name: 'events', url: 'https://events.example/sse', headers: [] },
    ];
    const sent = v1McpServers(configs);
    assert.deepEqual(sent, configs);
    assert.ok(!('type' in sent[0]!), 'a stdio server goes without a type');
    for (const server of sent) assert.deepEqual(acp.McpServer.parse(server), server);
    const request = acp.NewSessionRequest.safeParse({ cwd: '/w/app', mcpServers: sent });
    assert.ok(request.success, request.success ? '' : acp.formatIssues(request.error.issues));
  });
});
