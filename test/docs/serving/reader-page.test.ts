import { describe, expect, it } from 'vitest';
import { readerPageHtml } from '../../../src/docs/surface/reader-page.ts';

const base = 'https://quire.acme.test/sites/prj_1';

describe('a docs page rendered for a browser on the site surface', () => {
  it('shows raw HTML of the Markdown as text and drops script addresses', () => {
    const html = readerPageHtml(
      {
        title: '</title><script>alert(1)</script>',
        route: '/guides/setup',
        markdown: '# Setup\n\n<script>alert(2)</script>\n\n<img src=x onerror=alert(3)>\n\n[click](javascript:alert(4)) ![x](data:text/html,hi)\n',
      },
      base,
    );
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img src=x/);
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>');
    expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
  });

  it('points the docs site’s root-relative links under the surface, and leaves other links as they are', () => {
    const html = readerPageHtml(
      { title: 'Setup', route: '/', markdown: '[Webhooks](/api/webhooks) [Other](//cdn.example.com/x) [Site](https://acme.test/a) [Here](#configure)\n' },
      base,
    );
    expect(html).toContain(`href="${base}/api/webhooks"`);
    expect(html).toContain('href="//cdn.example.com/x"');
    expect(html).toContain('href="https://acme.test/a"');
    expect(html).toContain('href="#configure"');
    expect(html).toContain(`href="${base}/index.md"`);
  });
});
