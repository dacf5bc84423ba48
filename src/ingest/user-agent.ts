// Browser, OS, device type and bot flag from a user-agent string, cached because a site sees few distinct agents.
import { isbot } from 'isbot';
import UAParser from 'ua-parser-js';

export type DeviceType = 'desktop' | 'mobile' | 'tablet' | 'other';

export interface UserAgentFacts {
  browser: string | null;
  os: string | null;
  device_type: DeviceType | null;
  is_bot: boolean;
}

const noAgent: UserAgentFacts = { browser: null, os: null, device_type: null, is_bot: false };
const cacheLimit = 5000;
const cache = new Map<string, UserAgentFacts>();

function toDeviceType(type: string | undefined): DeviceType {
  if (type === undefined) return 'desktop';
  if (type === 'mobile') return 'mobile';
  if (type === 'tablet') return 'tablet';
  return 'other';
}

/**
 * @example describeUserAgent('Mozilla/5.0 (iPhone; ...) Mobile Safari') → { browser: 'Mobile Safari', os: 'iOS', device_type: 'mobile', is_bot: false }
 */
export function describeUserAgent(userAgent: string | undefined | null): UserAgentFacts {
  if (!userAgent) return noAgent;
  const cached = cache.get(userAgent);
  if (cached) return cached;
  const result = new UAParser(userAgent).getResult();
  const facts: UserAgentFacts = {
    browser: result.browser.name ?? null,
    os: result.os.name ?? null,
    device_type: toDeviceType(result.device.type),
    is_bot: isbot(userAgent),
  };
  // A plain Map as a bounded cache: when full, the oldest entry goes (insertion order).
  if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value!);
  cache.set(userAgent, facts);
  return facts;
}
