import { RE2JS } from 're2js';
import type { Config } from '../config/config.ts';

/**
 * Shapes of credentials that may sit in a repository's files or in a tool's output. They run on RE2:
 * the text comes from the repository and the model, and with a backtracking engine the key pattern
 * costs time quadratic in the number of unclosed `-----BEGIN … PRIVATE KEY-----` lines.
 */
const tokenPatterns = [
  'quire_[A-Za-z0-9]{16,}',
  'github_pat_[A-Za-z0-9_]{20,}',
  'gh[pousr]_[A-Za-z0-9]{20,}',
  'glpat-[A-Za-z0-9_-]{20,}',
  'sk-ant-[A-Za-z0-9_-]{20,}',
  'sk-[A-Za-z0-9_-]{32,}',
  '-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----',
].map((pattern) => RE2JS.compile(pattern));

/** Setting names whose values are credentials (`GITHUB_TOKEN`, `OPENAI_API_KEY`, `GITHUB_APP_PRIVATE_KEY`, …). */
const secretSetting = /token|key|secret|password/i;

export type Redactor = (text: string) => string;

/**
 * Replaces every configured credential value and anything shaped like a known token with
 * `[redacted]`. Values are read from the configuration by setting name, so credentials other
 * features add to the settings table are covered without a list here.
 */
export function createRedactor(config: Config, extra: string[] = []): Redactor {
  const values = Object.entries(config)
    .filter(([name, value]) => secretSetting.test(name) && typeof value === 'string')
    .map(([, value]) => value as string)
    .concat(extra)
    .filter((value) => value.length >= 6)
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let result = text;
    for (const value of values) result = result.split(value).join('[redacted]');
    for (const pattern of tokenPatterns) result = pattern.matcher(result).replaceAll('[redacted]');
    return result;
  };
}
