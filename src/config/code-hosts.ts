import { boolean, hidden, hiddenCredentials, optionalText, optionalUrl, privateKey, secretKey, setting, url, type Setting } from './parsers.ts';

/**
 * Code hosts and their credentials: GitHub, GitLab, the key that encrypts stored tokens, and what
 * the first organization may reach.
 */
export const codeHostSettings = {
  githubToken: setting<string | undefined>(
    'GITHUB_TOKEN',
    undefined,
    optionalText,
    'GitHub personal or fine-grained token for pushing job branches and opening pull requests (contents and pull requests: read and write).',
    hidden,
  ),
  githubAppId: setting<string | undefined>(
    'GITHUB_APP_ID',
    undefined,
    optionalText,
    'GitHub App id; with GITHUB_APP_PRIVATE_KEY, used instead of GITHUB_TOKEN (the installation is looked up per repository).',
  ),
  githubAppPrivateKey: setting<string | undefined>(
    'GITHUB_APP_PRIVATE_KEY',
    undefined,
    privateKey,
    'Private key of the GitHub App: the PEM text (`\\n` escapes allowed) or the path of the .pem file.',
    hidden,
  ),
  githubServerUrl: setting(
    'GITHUB_SERVER_URL',
    'https://github.com',
    url,
    'Web address of GitHub; repositories under it use the GitHub code host. Set it for GitHub Enterprise Server.',
    hiddenCredentials,
  ),
  githubApiUrl: setting<string | undefined>(
    'GITHUB_API_URL',
    undefined,
    optionalUrl,
    'GitHub REST API base; defaults to https://api.github.com for github.com and to GITHUB_SERVER_URL/api/v3 otherwise.',
    hiddenCredentials,
  ),
  gitlabUrl: setting<string | undefined>(
    'GITLAB_URL',
    undefined,
    optionalUrl,
    'Web address of a GitLab instance (https://gitlab.com or your own); repositories under it use the GitLab code host.',
    hiddenCredentials,
  ),
  gitlabToken: setting<string | undefined>(
    'GITLAB_TOKEN',
    undefined,
    optionalText,
    'GitLab personal, group or project access token with the `api` and `write_repository` scopes.',
    hidden,
  ),
  secretKey: setting<Buffer | undefined>(
    'QUIRE_SECRET_KEY',
    undefined,
    secretKey,
    "Key that encrypts organizations' code-host tokens and log drain secrets at rest (AES-256-GCM): 32 random bytes in base64 (`openssl rand -base64 32`). Unset on SQLite, made at the first start into QUIRE_DATA_DIR/secret-key (mode 0600) and used from then on; on PostgreSQL set it, the same on every node. Needed once a token is connected or a drain created.",
    hidden,
  ),
  secretKeyPrevious: setting<Buffer | undefined>(
    'QUIRE_SECRET_KEY_PREVIOUS',
    undefined,
    secretKey,
    'The key QUIRE_SECRET_KEY replaced, still accepted for decryption while `quire connections rotate-key` re-encrypts every token, webhook secret and log drain secret under the new one.',
    hidden,
  ),
  trustFirstOrganization: setting(
    'QUIRE_TRUST_FIRST_ORGANIZATION',
    false,
    boolean,
    'Lets the organization created at first start use any local repository and the server-wide GITHUB_* and GITLAB_TOKEN credentials, as a single-organization install wants. Other organizations get only what the operator grants (`quire orgs grant-local`, `quire orgs grant-server-credentials`).',
  ),
} satisfies Record<string, Setting<unknown>>;
