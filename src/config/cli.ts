import { hidden, hiddenCredentials, optionalText, optionalUrl, setting, type Setting } from './parsers.ts';

/**
 * The CLI verbs that are clients of the HTTP API (`quire jobs`, `quire docs`): where the API is and
 * the key they send. The server reads neither; unset, the address is the one the server settings
 * give (QUIRE_PUBLIC_URL, else HOST and PORT), so a verb run beside the server reaches it.
 */
export const cliSettings = {
  apiUrl: setting<string | undefined>(
    'QUIRE_URL',
    undefined,
    optionalUrl,
    "Address of the Quire API that `quire jobs` and `quire docs` call; unset, the server's own listener on this machine (`http://HOST:PORT`, loopback when HOST is `0.0.0.0` or `::`), so they reach the server started with the same settings wherever QUIRE_PUBLIC_URL leads (a name a container or the server itself may not reach). Set it to reach another server.",
    hiddenCredentials,
  ),
  apiKey: setting<string | undefined>(
    'QUIRE_API_KEY',
    undefined,
    optionalText,
    'Admin API key (`quire_…`; `quire keys create` makes one) that `quire jobs` and `quire docs` send; the server does not read it.',
    hidden,
  ),
} satisfies Record<string, Setting<unknown>>;
