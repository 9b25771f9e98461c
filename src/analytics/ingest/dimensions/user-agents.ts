/**
 * Browser, OS and device of a user agent, as the maintained parser bowser (MIT) names them, parsed
 * once per user agent (ingestion caches the answer by agent id, rebuilds store it per agent id).
 */
import Bowser from 'bowser';

export interface AgentTraits {
  browser: string;
  os: string;
  /** `desktop`, `mobile` or `tablet` (a human view's); every AI view's device is `bot`, decided by its class. */
  device: 'desktop' | 'mobile' | 'tablet' | 'bot';
}

export const unknownValue = 'Unknown';

const cache = new Map<string, AgentTraits>();

/** What `userAgent` says of its client; names as bowser gives them, `Unknown` where it gives none. */
export function agentTraits(userAgent: string): AgentTraits {
  const cached = cache.get(userAgent);
  if (cached) return cached;
  let traits: AgentTraits = { browser: unknownValue, os: unknownValue, device: 'desktop' };
  if (userAgent.trim() !== '') {
    const parsed = Bowser.parse(userAgent);
    const type = parsed.platform.type;
    traits = {
      browser: parsed.browser.name || unknownValue,
      os: parsed.os.name || unknownValue,
      // A TV or an unnamed platform counts with desktops: the contract's devices are desktop, mobile, tablet and bot.
      device: type === 'mobile' || type === 'tablet' || type === 'bot' ? type : 'desktop',
    };
  }
  if (cache.size >= 50_000) cache.clear();
  cache.set(userAgent, traits);
  return traits;
}
