// HTTP Range reads done right (web-platform notes §3): single ranges only, at most 4 in flight per
// URL, no overlapping ranges per URL, every 206 checked (status, Content-Range start/end/total,
// exact body length: Chromium can deliver a short body under a full Content-Length), bounded
// retries with backoff for short bodies, 5xx and timeouts, a server that ignores Range (200 with
// the whole body) handled once by keeping the body, and a changed strong ETag noticed so callers
// can drop what they cached. Counts requests and bytes for the "fetched / file size" figure.

export class RangeFetchError extends Error {
  constructor(message, { status = 0, range = null } = {}) {
    super(message);
    this.name = 'RangeFetchError';
    this.status = status;
    this.range = range;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A failure worth another try: a short body, a 5xx, a wrong range, a timeout, a network error.
const retryable = (message, options) => Object.assign(new RangeFetchError(message, options), { retryable: true });
// An answer whose body is not used is still read, so the connection is released cleanly.
const drain = (response) => response.arrayBuffer().catch(() => {});

export class RangeFetcher {
  #url; #maxInFlight; #retries; #timeoutMs; #inFlight = 0; #queue = []; #active = [];
  #etag = null; #wholeFile = null;
  size = null;            // total file size once known
  requests = 0;           // HTTP requests sent
  bytes = 0;              // body bytes received
  notices = [];           // human-readable notices ("server ignores Range: reading the whole file")
  lookups = 0;            // HEAD requests for files next to this one (not counted in requests)
  onChange = null;        // called once when the file changed (ETag / Last-Modified) under us

  constructor(url, { maxInFlight = 4, retries = 3, timeoutMs = 20000 } = {}) {
    this.#url = url;
    this.#maxInFlight = maxInFlight;
    this.#retries = retries;
    this.#timeoutMs = timeoutMs;
  }

  // Bytes [begin, end) as a Uint8Array. `signal` aborts the request (a section left behind).
  async read(begin, end, signal) {
    if (this.#wholeFile) return this.#wholeFile.subarray(begin, Math.min(end, this.#wholeFile.length));
    await this.#slot(begin, end, signal);
    try {
      return await this.#readWithRetries(begin, end, signal);
    } finally {
      this.#release(begin, end);
    }
  }

  // Bytes [begin, end) read at once (a synchronous request: workers only), for an export that
  // walks the file's parts one at a time; null if they cannot be had whole. Retried as read() is.
  readNow(begin, end) {
    if (this.#wholeFile) return this.#wholeFile.subarray(begin, Math.min(end, this.#wholeFile.length));
    for (let attempt = 0; attempt <= this.#retries; attempt++) {
      const xhr = new XMLHttpRequest();
      xhr.open('GET', this.#url, false);
      xhr.responseType = 'arraybuffer';
      xhr.setRequestHeader('Range', `bytes=${begin}-${end - 1}`);
      xhr.timeout = this.#timeoutMs;
      this.requests++;
      try {
        xhr.send();
      } catch {
        continue;  // a network error or a timeout: again
      }
      if (xhr.status === 206 || xhr.status === 200) {
        let body = new Uint8Array(xhr.response);
        if (xhr.status === 200) body = body.subarray(begin, end);  // a server that ignores Range
        this.bytes += body.length;
        if (body.length === end - begin) return body;
      }
      if (xhr.status && xhr.status < 500) return null;  // 4xx: asking again will not help
    }
    return null;
  }

  // Whether another file (next to this one: a model, a texture) exists: a HEAD request that
  // takes one of the same slots, so lookups never crowd out the reads. Any answer but 2xx, a
  // network error or a timeout counts as absent (null); otherwise {size} (null when the server
  // does not say). An abort by the caller throws AbortError.
  async exists(url, signal) {
    await this.#slot(-1, -1, signal);  // an empty range overlaps no read
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal?.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(abort, this.#timeoutMs);
    try {
      this.lookups++;
      const response = await fetch(url, { method: 'HEAD', cache: 'no-store', signal: controller.signal });
      if (!response.ok) return null;
      const length = response.headers.get('Content-Length');
      return { size: length == null ? null : Number(length) };
    } catch (e) {
      if (signal?.aborted) throw e;
      return null;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      this.#release(-1, -1);
    }
  }

  // Concurrency: at most maxInFlight requests, never two overlapping ranges at once.
  async #slot(begin, end, signal) {
    const overlaps = () => this.#active.some(([b, e]) => b < end && begin < e);
    while (this.#inFlight >= this.#maxInFlight || overlaps()) {
      if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
      await new Promise((r) => this.#queue.push(r));
    }
    this.#inFlight++;
    this.#active.push([begin, end]);
  }

  #release(begin, end) {
    this.#inFlight--;
    const i = this.#active.findIndex(([b, e]) => b === begin && e === end);
    if (i >= 0) this.#active.splice(i, 1);
    const waiting = this.#queue.splice(0);
    for (const wake of waiting) wake();
  }

  async #readWithRetries(begin, end, signal) {
    let lastError = null;
    for (let attempt = 0; attempt <= this.#retries; attempt++) {
      if (attempt > 0) await sleep(Math.min(2000, 150 * 2 ** (attempt - 1)));
      if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
      try {
        return await this.#once(begin, end, signal);
      } catch (e) {
        if (e.name === 'AbortError' || !e.retryable) throw e;
        lastError = e;
      }
    }
    lastError.message += ` (gave up after ${this.#retries + 1} attempts)`;
    throw lastError;
  }

  async #once(begin, end, outerSignal) {
    const range = `bytes ${begin}-${end - 1}`;
    const controller = new AbortController();
    const abort = () => controller.abort();
    outerSignal?.addEventListener('abort', abort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; abort(); }, this.#timeoutMs);
    // A timeout aborts like a cancel does; only the caller's own abort is an AbortError.
    const failed = (e) => {
      if (outerSignal?.aborted) throw e;
      if (timedOut) throw retryable(`no answer within ${this.#timeoutMs} ms reading ${range}`);
      throw retryable(`network error reading ${range}: ${e.message}`);
    };
    try {
      this.requests++;
      // no-store: Chromium's in-memory cache is where short-206 bodies come from.
      const response = await fetch(this.#url, {
        headers: { Range: `bytes=${begin}-${end - 1}` }, cache: 'no-store', signal: controller.signal,
      }).catch(failed);
      this.#checkVersion(response);
      if (response.status === 200) return this.#whole(response, begin, end);
      if (response.status !== 206) await drain(response);
      if (response.status === 416) {
        const total = /bytes \*\/(\d+)/.exec(response.headers.get('Content-Range') || '');
        if (total) this.size = Number(total[1]);
        throw new RangeFetchError(`${range} are beyond the end of the file (${this.size ?? '?'} bytes)`, { status: 416 });
      }
      if (response.status >= 500 || response.status === 408 || response.status === 429) {
        throw retryable(`HTTP ${response.status} reading ${range}`, { status: response.status });
      }
      if (response.status !== 206) throw new RangeFetchError(`HTTP ${response.status} reading ${range}`, { status: response.status });
      const contentRange = response.headers.get('Content-Range');
      const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange ?? '');
      // A range reaching past the end is answered up to the last byte (RFC 9110 §14.1.2; nginx
      // does so for a first 16 KiB read of a smaller file).
      const total = match && match[3] !== '*' ? Number(match[3]) : Infinity;
      const last = Math.min(end, total) - 1;
      if (!match || Number(match[1]) !== begin || Number(match[2]) !== last) {
        await drain(response);
        throw retryable(contentRange === null ? `a 206 answer without Content-Range for ${range} (is Content-Range exposed to CORS?)`
                                              : `Content-Range '${contentRange}' does not match ${range}`);
      }
      if (match[3] !== '*') this.size = Number(match[3]);
      const body = new Uint8Array(await response.arrayBuffer().catch(failed));
      this.bytes += body.length;
      if (body.length !== last + 1 - begin) throw retryable(`short body: ${body.length} of ${last + 1 - begin} bytes at ${begin}`);
      return body;
    } finally {
      clearTimeout(timer);
      outerSignal?.removeEventListener('abort', abort);
    }
  }

  async #whole(response, begin, end) {
    // The server ignores Range: keep the whole body once and serve every later read from it.
    const body = new Uint8Array(await response.arrayBuffer());
    this.bytes += body.length;
    this.size = body.length;
    this.#wholeFile = body;
    this.notices.push(`the server ignores HTTP Range requests: the whole file (${body.length} bytes) was downloaded once`);
    return body.subarray(begin, Math.min(end, body.length));
  }

  #checkVersion(response) {
    // Weak ETags may change without the bytes changing; only a strong one (or Last-Modified) counts.
    const etag = response.headers.get('ETag');
    const version = etag && !etag.startsWith('W/') ? etag : response.headers.get('Last-Modified');
    if (!version) return;
    if (this.#etag && version !== this.#etag) {
      this.notices.push('the file changed on the server while it was open: reloaded');
      this.#etag = version;
      this.onChange?.();
      return;
    }
    this.#etag = version;
  }

  get wholeFileMode() { return this.#wholeFile !== null; }
}
