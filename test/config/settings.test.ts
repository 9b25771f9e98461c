import { describe, expect, it } from 'vitest';
import { loadConfig, localListenerUrl, publicUrl, settings } from '../../src/config/config.ts';
import { ConfigError, hiddenPassword, optionalUrl, url, type Setting } from '../../src/config/parsers.ts';

const entries = Object.values(settings) as Setting<unknown>[];

function problem(entry: Setting<unknown>, raw: string): string | undefined {
  try {
    entry.parse(raw, entry.env);
    return undefined;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message;
  }
}

describe('secret settings', () => {
  it('a database URL keeps its password out of sight, in the user part and in the query pg reads', () => {
    expect(hiddenPassword('postgres://quire@db/quire?password=hunter2')).toBe('postgres://quire@db/quire?password=****');
    expect(hiddenPassword('postgres://quire@db/quire?sslmode=require&sslpassword=hunter2&application_name=quire')).toBe(
      'postgres://quire@db/quire?sslmode=require&sslpassword=****&application_name=quire',
    );
    expect(hiddenPassword('postgres://quire:hunter2@db/quire?PassWord=hunter2')).not.toContain('hunter2');
    // sslkey names the key's file, which pg reads: a path, shown as it is.
    expect(hiddenPassword('postgres://quire@db/quire?sslkey=/etc/quire/client.key')).toBe('postgres://quire@db/quire?sslkey=/etc/quire/client.key');
  });

  it('every URL setting hides the credentials a URL may carry', () => {
    const urlSettings = entries.filter((entry) => entry.parse === url || entry.parse === optionalUrl || entry.env === 'DATABASE_URL');
    expect(urlSettings.map((entry) => entry.env)).toEqual(
      expect.arrayContaining(['QUIRE_PUBLIC_URL', 'DATABASE_URL', 'OPENAI_BASE_URL', 'GITHUB_SERVER_URL', 'GITHUB_API_URL', 'GITLAB_URL']),
    );
    for (const entry of urlSettings) {
      for (const raw of ['https://someone:s3cret@host.example/v1', 'https://host.example/v1?api_key=s3cret', 'https://host.example/v1?token=s3cret']) {
        const shown = entry.mask ? entry.mask(raw) : raw;
        expect(shown, `${entry.env}=${raw}`).not.toContain('s3cret');
        expect(shown, `${entry.env}=${raw}`).toContain('host.example');
      }
    }
    const openai = settings.openaiBaseUrl as Setting<unknown>;
    expect(openai.mask?.('http://ollama:s3cret@127.0.0.1:11434/v1')).toBe('http://****:****@127.0.0.1:11434/v1');
    expect(openai.mask?.('https://ghp_s3cret@proxy.example/v1')).toBe('https://****@proxy.example/v1');
  });

  it('no message about a malformed secret setting repeats its value', () => {
    const malformed = ['MIIEvQs3cret', 'abc s3cret', '//user:s3cret@host', 'https://user:s3cret@[::1', 's3cret@'];
    const secrets = entries.filter((entry) => entry.mask);
    expect(secrets.map((entry) => entry.env)).toEqual(
      expect.arrayContaining(['GITHUB_APP_PRIVATE_KEY', 'GITHUB_TOKEN', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'QUIRE_METRICS_TOKEN', 'DATABASE_URL']),
    );
    for (const entry of secrets) {
      for (const raw of malformed) expect(problem(entry, raw) ?? '', `${entry.env}=${raw}`).not.toContain('s3cret');
    }
  });

  it('a GitHub App private key that is neither PEM text nor a readable file says so, without the key', () => {
    const key = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';
    expect(() => loadConfig({ GITHUB_APP_PRIVATE_KEY: key })).toThrow(ConfigError);
    const message = problem(settings.githubAppPrivateKey as Setting<unknown>, key)!;
    expect(message).not.toContain('MIIEvQ');
    expect(message).toContain('GITHUB_APP_PRIVATE_KEY');
    expect(message).toContain('-----BEGIN');
    expect(message).toMatch(/path of .*\.pem file/);
  });
});

describe('durations that become timers', () => {
  // Node waits at most 2^31 - 1 ms: a longer setTimeout fires after 1 ms, a longer AbortSignal.timeout aborts at once.
  const longestMs = 2_147_483_647;
  const timerSeconds = [
    'QUIRE_AGENT_MAX_SECONDS',
    'QUIRE_JOB_LEASE_SECONDS',
    'QUIRE_DOCS_BUILD_LEASE_SECONDS',
    'QUIRE_SHUTDOWN_GRACE_SECONDS',
    'QUIRE_EVENTS_HEARTBEAT_SECONDS',
    'QUIRE_CHECK_MAX_SECONDS',
    'QUIRE_ASSISTANT_MAX_SECONDS',
    'QUIRE_DOCS_POLL_SECONDS',
  ];

  it('refuses a millisecond setting of 2^31 or more, naming the setting and its maximum', () => {
    const milliseconds = entries.filter((entry) => entry.env.endsWith('_MS'));
    expect(milliseconds.map((entry) => entry.env)).toEqual(
      expect.arrayContaining(['QUIRE_WORKER_POLL_MS', 'QUIRE_WEBHOOK_POLL_MS', 'QUIRE_DATABASE_STATEMENT_TIMEOUT_MS']),
    );
    for (const entry of milliseconds) {
      const message = problem(entry, String(longestMs + 1));
      expect(message, entry.env).toMatch(new RegExp(`^${entry.env} must be a whole number from \\d+ to (\\d+)`));
      expect(Number(/ to (\d+)/.exec(message!)![1]), entry.env).toBeLessThanOrEqual(longestMs);
    }
    expect(() => loadConfig({ QUIRE_WORKER_POLL_MS: '2147483648' })).toThrow(
      'QUIRE_WORKER_POLL_MS must be a whole number from 10 to 2147483647, got "2147483648".',
    );
    expect(loadConfig({ QUIRE_WORKER_POLL_MS: String(longestMs), QUIRE_WEBHOOK_POLL_MS: String(longestMs) })).toMatchObject({
      workerPollMs: longestMs,
      webhookPollMs: longestMs,
    });
  });

  it('refuses a second setting that becomes a timer of 2^31 ms or more, naming the setting and its maximum', () => {
    const longestSeconds = Math.floor(longestMs / 1000);
    for (const name of timerSeconds) {
      const entry = entries.find((candidate) => candidate.env === name)!;
      const message = problem(entry, String(longestSeconds + 1));
      expect(message, name).toMatch(new RegExp(`^${name} must be a whole number from \\d+ to (\\d+)`));
      expect(Number(/ to (\d+)/.exec(message!)![1]) * 1000, name).toBeLessThanOrEqual(longestMs);
    }
    expect(() => loadConfig({ QUIRE_AGENT_MAX_SECONDS: '2147484' })).toThrow(
      'QUIRE_AGENT_MAX_SECONDS must be a whole number from 1 to 2147483, got "2147484".',
    );
    expect(loadConfig({ QUIRE_AGENT_MAX_SECONDS: '2147483' }).agentMaxSeconds).toBe(2_147_483);
  });

  it('the longest agent run still leaves AbortSignal.timeout waiting', async () => {
    const signal = AbortSignal.timeout(loadConfig({ QUIRE_AGENT_MAX_SECONDS: '2147483' }).agentMaxSeconds * 1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signal.aborted).toBe(false);
  });
});

describe('the server addresses the settings give', () => {
  const config = (host: string) => loadConfig({ HOST: host, PORT: '9000', QUIRE_PUBLIC_URL: 'https://docs.example.com' });

  it("reaches a wildcard HOST's listener on loopback from this machine, whatever QUIRE_PUBLIC_URL says", () => {
    expect(localListenerUrl(config('0.0.0.0'))).toBe('http://127.0.0.1:9000');
    for (const host of ['::', '[::]', '0:0:0:0:0:0:0:0']) expect(localListenerUrl(config(host)), host).toBe('http://[::1]:9000');
    expect(localListenerUrl(config('10.1.2.3'))).toBe('http://10.1.2.3:9000');
    for (const host of ['::1', '[::1]']) expect(localListenerUrl(config(host)), host).toBe('http://[::1]:9000');
  });

  it('writes an IPv6 HOST in brackets once in the public address it defaults to', () => {
    for (const host of ['::1', '[::1]']) expect(publicUrl(loadConfig({ HOST: host, PORT: '9000' })), host).toBe('http://[::1]:9000');
    expect(publicUrl(loadConfig({ HOST: '127.0.0.1', PORT: '9000' }))).toBe('http://127.0.0.1:9000');
  });
});
