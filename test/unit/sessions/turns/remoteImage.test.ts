import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchRemoteImage, RemoteImageCache } from '../../../../src/sessions/turns/remoteImage';

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

describe("RemoteImageCache (a chat's remote images, fetched once)", () => {
  function counting(fail = new Set<string>()) {
    const fetched: string[] = [];
    const fetchImage = async (address: string) => {
      fetched.push(address);
      await Promise.resolve();
      if (fail.has(address)) throw new Error(`${address} failed`);
      return { dataUrl: `data:image/png;base64,${'A'.repeat(100)}`, bytes: 75 };
    };
    return { fetched, fetchImage };
  }

  it('fetches an image once: asked again (the webview recreated), it answers what it kept', async () => {
    const { fetched, fetchImage } = counting();
    const cache = new RemoteImageCache(fetchImage);
    const first = await cache.get('https://a.test/1.png');
    const again = await cache.get('https://a.test/1.png');
    assert.equal(first.cached, false);
    assert.equal(again.cached, true);
    assert.equal(again.dataUrl, first.dataUrl);
    assert.deepEqual(fetched, ['https://a.test/1.png']);
  });

  it('shares one fetch between two asks at once', async () => {
    const { fetched, fetchImage } = counting();
    const cache = new RemoteImageCache(fetchImage);
    await Promise.all([cache.get('https://a.test/1.png'), cache.get('https://a.test/1.png')]);
    assert.deepEqual(fetched, ['https://a.test/1.png']);
  });

  it('keeps no failure: the user may try again', async () => {
    const fail = new Set(['https://a.test/down.png']);
    const { fetched, fetchImage } = counting(fail);
    const cache = new RemoteImageCache(fetchImage);
    await assert.rejects(cache.get('https://a.test/down.png'), /failed/);
    fail.clear();
    assert.equal((await cache.get('https://a.test/down.png')).cached, false);
    assert.deepEqual(fetched, ['https://a.test/down.png', 'https://a.test/down.png']);
  });

  it('is bounded in count and size: the least recently asked for go first', async () => {
    const { fetched, fetchImage } = counting();
    const cache = new RemoteImageCache(fetchImage, { maxCount: 2, maxChars: 10_000 });
    await cache.get('https://a.test/1.png');
    await cache.get('https://a.test/2.png');
    await cache.get('https://a.test/1.png'); // 1 is now the most recent
    await cache.get('https://a.test/3.png'); // 2 goes
    assert.equal(cache.size, 2);
    assert.equal((await cache.get('https://a.test/1.png')).cached, true);
    assert.equal((await cache.get('https://a.test/2.png')).cached, false);
    assert.deepEqual(fetched, ['https://a.test/1.png', 'https://a.test/2.png', 'https://a.test/3.png', 'https://a.test/2.png']);

    const small = new RemoteImageCache(fetchImage, { maxCount: 10, maxChars: 250 });
    await small.get('https://a.test/a.png');
    await small.get('https://a.test/b.png');
    await small.get('https://a.test/c.png'); // 3 × 122 characters > 250: a goes
    assert.equal(small.size, 2);
    const tiny = new RemoteImageCache(fetchImage, { maxCount: 10, maxChars: 50 });
    await tiny.get('https://a.test/a.png');
    assert.equal(tiny.size, 0, 'an image larger than the whole cache is shown, not kept');
  });
});
