/** The generated documentation sites the tasks start from, one per framework: small, with known facts, typos and links. */

export function mkdocsSite(): Record<string, string> {
  return {
    'mkdocs.yml': 'site_name: Acme Widgets\nnav:\n  - Home: index.md\n  - Installation: setup.md\n  - Usage: usage.md\n  - Configuration: configuration.md\n',
    'docs/index.md':
      '# Acme Widgets\n\nAcme Widgets keeps your widgets in order. Start with the [installation](setup.md).\n\nYou will recieve a welcome email after you sign up.\n',
    'docs/setup.md':
      '# Installation\n\nInstall the tool with `pip install acme-widgets`, then run `acme-cli init`.\n\n## Requirements\n\nPython 3.10 or later.\n',
    'docs/usage.md': '# Usage\n\nRun `acme-cli sort` to sort your widgets. Read the [installation](setup.md) first.\n\nYou recieve a report after each run.\n',
    'docs/configuration.md':
      '# Configuration\n\nSettings live in `acme.toml`. After a change you recieve a confirmation.\n\nThe `acme-cli check` command validates the file.\n',
  };
}

/** The MkDocs site with deploy guides two folders down (`docs/guides/deploy/`), linking up to the root and to each other. */
export function nestedMkdocsSite(): Record<string, string> {
  const site = mkdocsSite();
  return {
    ...site,
    'mkdocs.yml': `${site['mkdocs.yml']}  - Guides:\n      - Deploy:\n          - Kubernetes: guides/deploy/kubernetes.md\n          - Docker: guides/deploy/docker.md\n`,
    'docs/guides/deploy/kubernetes.md':
      '# Kubernetes\n\nInstall the tool first (see [installation](../../setup.md)), then apply the manifest. Without a cluster, use [Docker](docker.md).\n',
    'docs/guides/deploy/docker.md':
      '# Docker\n\nRun `docker run acme/widgets`. On a cluster, see [Kubernetes](kubernetes.md); settings are in [configuration](../../configuration.md).\n',
  };
}

export const mintlifyNavigation = (pages: { start: string[]; reference: string[] }) =>
  `${JSON.stringify(
    {
      $schema: 'https://mintlify.com/docs.json',
      name: 'Acme API',
      navigation: {
        groups: [
          { group: 'Get started', pages: pages.start },
          { group: 'Reference', pages: pages.reference },
        ],
      },
    },
    null,
    2,
  )}\n`;

export const mintlifyPages = { start: ['index', 'quickstart', 'installation'], reference: ['api/overview', 'legacy-api'] };

export function mintlifySite(): Record<string, string> {
  return {
    'docs.json': mintlifyNavigation(mintlifyPages),
    'index.mdx': '---\ntitle: Introduction\n---\n\nAcme API lets you manage widgets over HTTP. Read the [quickstart](/quickstart).\n',
    'quickstart.mdx':
      '---\ntitle: Quickstart\n---\n\nCreate an API key on the dashboard, then call the API.\n\nInstall the SDK first: see [installation](/install-guide).\n',
    'installation.mdx': '---\ntitle: Installation\n---\n\nRun `npm install @acme/sdk`.\n',
    'api/overview.mdx': '---\ntitle: API overview\n---\n\nAll endpoints live under `/v2`. The [legacy API](/legacy-api) is deprecated.\n',
    'legacy-api.mdx': '---\ntitle: Legacy API\n---\n\nThe v1 API is deprecated and will be removed.\n',
  };
}

export const docusaurusSidebars = (guides: string[]) =>
  `module.exports = {\n  docs: [\n    'intro',\n    {\n      type: 'category',\n      label: 'Guides',\n      items: [${guides.map((id) => `'${id}'`).join(', ')}],\n    },\n  ],\n};\n`;

export function docusaurusSite(): Record<string, string> {
  return {
    'docusaurus.config.js': "module.exports = { title: 'Acme CLI', url: 'https://docs.acme.test', baseUrl: '/' };\n",
    'sidebars.js': docusaurusSidebars(['guides/setup', 'guides/deploy']),
    'docs/intro.md': '---\nsidebar_position: 1\n---\n\n# Introduction\n\nAcme CLI deploys widgets. Start with [setup](guides/setup.md).\n',
    'docs/guides/setup.md': '# Setup\n\nRun `acme login`.\n\nThen [deploy](deploy.md).\n',
    'docs/guides/deploy.md': '# Deploy\n\nRun `acme deploy`. If it fails, check the [setup](./setup.md).\n',
  };
}
