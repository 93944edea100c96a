import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DownloadCancelledError, download } from '../../../../../src/agents/registry/install/download';
import { FileServer } from './fileServer';

describe('registry install: download', () => {
  let server: FileServer;
  let dir: string;
  let file: string;

  beforeEach(async () => {
    server = await FileServer.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-download-'));
    file = path.join(dir, 'download');
  });
  afterEach(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('streams the body to the file with its SHA-256 and reports progress against Content-Length', async () => {
    const body = randomBytes(300 * 1024);
    server.file('/agent.tar.gz', body);
    const progress: Array<[number, number | undefined]> = [];
    const sha256 = createHash('sha256').update(body).digest('hex');
    const result = await download(`${server.url}/agent.tar.gz`, file, {
      sha256: sha256.toUpperCase(),
      onProgress: (received, total) => progress.push([received, total]),
    });
    assert.deepEqual(fs.readFileSync(file), body);
    assert.equal(result.sha256, sha256);
    assert.equal(result.bytes, body.length);
    assert.ok(progress.length > 0);
    assert.deepEqual(progress.at(-1), [body.length, body.length]);
    assert.ok(
      progress.every(([received], i) => i === 0 || received > progress[i - 1]![0]),
      'progress only grows',
    );
  });

  it('removes the file when the checksum does not match, naming both', async () => {
    server.file('/agent.tar.gz', 'the real bytes');
    const expected = 'a'.repeat(64);
    await assert.rejects(download(`${server.url}/agent.tar.gz`, file, { sha256: expected }), (error: Error) => {
      assert.ok(error.message.includes(expected), error.message);
      assert.ok(error.message.includes(createHash('sha256').update('the real bytes').digest('hex')), error.message);
      return true;
    });
    assert.equal(fs.existsSync(file), false);
  });

  it('says what the server answered', async () => {
    await assert.rejects(download(`${server.url}/missing.zip`, file), /answered 404.*missing\.zip/);
    assert.equal(fs.existsSync(file), false);
  });

  it('follows redirects, each checked, up to five', async () => {
    server.file('/final.zip', 'zip bytes');
    server.routes.set('/hop', (_request, response) => {
      response.writeHead(302, { location: '/final.zip' });
      response.end();
    });
    const result = await download(`${server.url}/hop`, file);
    assert.equal(fs.readFileSync(file, 'utf8'), 'zip bytes');
    assert.equal(result.bytes, 9);
  });

  it('stops a redirect loop', async () => {
    server.routes.set('/loop', (_request, response) => {
      response.writeHead(301, { location: '/loop' });
      response.end();
    });
    await assert.rejects(download(`${server.url}/loop`, file), /redirected more than 5 times/);
    assert.equal(server.requests.filter((r) => r === '/loop').length, 6, 'the first request and five redirects');
    assert.equal(fs.existsSync(file), false);
  });

  it('refuses a redirect to plain HTTP off this machine, before any request goes there', async () => {
    server.routes.set('/away', (_request, response) => {
      response.writeHead(302, { location: 'http://example.com/agent.zip' });
      response.end();
    });
    await assert.rejects(download(`${server.url}/away`, file), /plain HTTP/);
    assert.equal(fs.existsSync(file), false);
  });

  it('refuses a URL the policy refuses', async () => {
    await assert.rejects(download('file:///etc/passwd', file), /not an HTTPS address/);
    await assert.rejects(download('http://example.com/a.zip', file), /plain HTTP/);
  });

  it('fails at the size limit counting the bytes received, whatever Content-Length says', async () => {
    server.routes.set('/big', (_request, response) => {
      // Chunked: no Content-Length to trust.
      response.write(randomBytes(64 * 1024));
      response.write(randomBytes(64 * 1024));
      response.end(randomBytes(64 * 1024));
    });
    await assert.rejects(download(`${server.url}/big`, file, { maxBytes: 100 * 1024 }), /larger than the limit/);
    assert.equal(fs.existsSync(file), false);
  });

  it('refuses at once when Content-Length is above the limit', async () => {
    server.file('/announced', randomBytes(8 * 1024));
    await assert.rejects(download(`${server.url}/announced`, file, { maxBytes: 1024 }), /larger than the limit/);
  });

  it('is cancelled mid-download by the signal, leaving no file', async () => {
    const controller = new AbortController();
    server.routes.set('/slow', (_request, response) => {
      response.writeHead(200, { 'content-length': String(1024 * 1024) });
      response.write(randomBytes(16 * 1024)); // then nothing more: only the cancel ends it
    });
    const done = download(`${server.url}/slow`, file, { signal: controller.signal, onProgress: () => controller.abort() });
    await assert.rejects(done, DownloadCancelledError);
    assert.equal(fs.existsSync(file), false);
  });

  it('fails when the server sends nothing for the idle timeout', async () => {
    server.routes.set('/stall', (_request, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('partial');
    });
    await assert.rejects(download(`${server.url}/stall`, file, { idleTimeoutMs: 200 }), /sent nothing for/);
    assert.equal(fs.existsSync(file), false);
  });
});
