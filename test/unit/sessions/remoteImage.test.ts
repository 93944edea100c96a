import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchRemoteImage } from '../../../src/sessions/remoteImage';

describe('fetchRemoteImage (a remote image the user asked to see, as a data: URL)', () => {
  let server: http.Server;
  let base: string;
  const requests: http.IncomingHttpHeaders[] = [];
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

  before(async () => {
    server = http.createServer((request, response) => {
      requests.push(request.headers);
      switch (request.url) {
        case '/pixel.png':
          response.writeHead(200, { 'content-type': 'image/png; charset=binary', 'content-length': png.length });
          return response.end(png);
        case '/moved':
          response.writeHead(302, { location: '/pixel.png' });
          return response.end();
        case '/page':
          response.writeHead(200, { 'content-type': 'text/html' });
          return response.end('<html></html>');
        case '/declared-big':
          response.writeHead(200, { 'content-type': 'image/png', 'content-length': 2048 });
          return response.end(Buffer.alloc(2048));
        case '/streamed-big':
          response.writeHead(200, { 'content-type': 'image/png' });
          response.write(Buffer.alloc(700));
          return response.end(Buffer.alloc(700));
        default:
          response.writeHead(404, 'Not Found');
          return response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('fetches an image, following redirects, without cookies or referrer', async () => {
    const { dataUrl, bytes } = await fetchRemoteImage(`${base}/moved`);
    assert.equal(dataUrl, `data:image/png;base64,${png.toString('base64')}`);
    assert.equal(bytes, png.length);
    const last = requests.at(-1)!;
    assert.equal(last.cookie, undefined);
    assert.equal(last.referer, undefined);
    assert.equal(last.accept, 'image/*');
  });

  it('says why in words: not an image, an error status, too large (declared or streamed), not a web address, unreachable', async () => {
    await assert.rejects(fetchRemoteImage(`${base}/page`), /127\.0\.0\.1:\d+ sent text\/html, not an image\./);
    await assert.rejects(fetchRemoteImage(`${base}/gone`), /answered 404 Not Found\./);
    await assert.rejects(fetchRemoteImage(`${base}/declared-big`, { maxBytes: 1024 }), /The image is larger than 1024 bytes\./);
    await assert.rejects(fetchRemoteImage(`${base}/streamed-big`, { maxBytes: 1024 }), /The image is larger than 1024 bytes\./);
    await assert.rejects(fetchRemoteImage('file:///etc/passwd'), /Only web images \(http, https\) can be loaded, not file: ones\./);
    await assert.rejects(fetchRemoteImage('not a url'), /not a web address/);
    await assert.rejects(fetchRemoteImage('http://127.0.0.1:1/x.png'), /could not be reached/);
  });
});
