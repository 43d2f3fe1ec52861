// The one secret rule: plugin setting values always hidden, secret-named values hidden anywhere, other values kept.
import * as assert from 'node:assert/strict';
import { defaultConfig, isSecretKey, redactConfig, redactSecretKeys } from '../../../src/core/config';
import { redactFields } from '../../../server/logger';

describe('secret redaction', () => {
  it('recognises secret names in any position and case', () => {
    for (const key of ['apiKey', 'api_key', 'accessTokens', 'password2', 'privateKeyPem', 'authorization', 'clientSecretValue', 'credentials', 'pass', 'Cookie']) {
      assert.ok(isSecretKey(key), key);
    }
    for (const key of ['folder', 'fontSize', 'theme', 'enabled', 'maxFileSize']) assert.ok(!isSecretKey(key), key);
  });

  it('hides every plugin setting value, however nested, and keeps the rest of the configuration', () => {
    const config = defaultConfig();
    config.plugins.settings = { p1: { folder: 'journal', credentials: { pass: 'hunter2' }, tokens: ['t1'] } };
    const shown = redactConfig(config);
    assert.deepEqual((shown.plugins as { settings: unknown }).settings, { p1: { folder: '[redacted]', credentials: '[redacted]', tokens: '[redacted]' } });
    assert.deepEqual(shown.editor, config.editor);
    assert.equal(config.plugins.settings.p1.folder, 'journal', 'the configuration itself is not changed');
  });

  it('hides secret-named values at any depth, in lists too (logs)', () => {
    assert.deepEqual(redactSecretKeys({ a: { b: [{ authorization: 'Bearer x', ok: 1 }] } }), { a: { b: [{ authorization: '[redacted]', ok: 1 }] } });
    assert.deepEqual(redactFields({ request: { headers: { cookie: 'c', host: 'h' } } }), { request: { headers: { cookie: '[redacted]', host: 'h' } } });
  });
});
