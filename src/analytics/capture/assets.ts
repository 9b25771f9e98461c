/**
 * Whether a request is a documentation page or a static asset. Logs, drains and the proxy see every
 * request a site answers: images, scripts, styles and fonts outnumber pages several times, and a
 * view is one request for a page. The events API does not apply this rule: its callers choose what
 * they send.
 */

/** File extensions of static assets (lower case, without the dot). */
const assetExtensions = new Set([
  // images
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'svg',
  'ico',
  'bmp',
  'tif',
  'tiff',
  'apng',
  // scripts, styles, source maps, WebAssembly
  'js',
  'mjs',
  'cjs',
  'css',
  'map',
  'wasm',
  // fonts
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  // media
  'mp4',
  'webm',
  'mp3',
  'ogg',
  'wav',
]);

/** Content types whose responses are pages: HTML, Markdown and plain text (`llms.txt`). */
const pageTypes = new Set(['text/html', 'application/xhtml+xml', 'text/markdown', 'text/x-markdown', 'text/plain']);
/** Content types of assets: anything under these, or one of the exact types. */
const assetTypePrefixes = ['image/', 'font/', 'audio/', 'video/'];
const assetTypes = new Set([
  'text/css',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/wasm',
  'application/font-woff',
  'application/font-woff2',
  'application/vnd.ms-fontobject',
  'application/x-font-ttf',
  'application/x-font-otf',
]);

/** The media type of a Content-Type value, lower case and without parameters (`text/html; charset=utf-8` → `text/html`). */
function mediaType(contentType: string): string {
  const end = contentType.indexOf(';');
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}

/** The extension of a request path's last segment (query and fragment ignored), lower case, or ''. */
function extensionOf(path: string): string {
  let end = path.length;
  for (let index = 0; index < path.length; index++) {
    const code = path.charCodeAt(index);
    if (code === 0x3f /* ? */ || code === 0x23 /* # */) {
      end = index;
      break;
    }
  }
  for (let index = end - 1; index >= 0; index--) {
    const code = path.charCodeAt(index);
    if (code === 0x2f /* / */) return '';
    if (code === 0x2e /* . */) return end - index - 1 > 8 ? '' : path.slice(index + 1, end).toLowerCase();
  }
  return '';
}

/**
 * True when a request is for a static asset, not a page: by the project's own extension changes
 * first (`rule`), then by the response's content type when the source gives one (a page type wins
 * over an asset-looking name, as `/api.js` may serve HTML), else by the path's extension.
 * `favicon.ico` and source maps are assets by name.
 */
export function isAsset(path: string, contentType?: string | null, rule?: AssetRule): boolean {
  const extension = extensionOf(path);
  if (rule?.assets?.includes(extension)) return true;
  if (rule?.pages?.includes(extension)) return false;
  if (contentType) {
    const type = mediaType(contentType);
    if (pageTypes.has(type)) return false;
    if (assetTypes.has(type) || assetTypePrefixes.some((prefix) => type.startsWith(prefix))) return true;
  }
  return assetExtensions.has(extension);
}

/**
 * Per project: whether asset requests from logs, drains and the proxy are dropped (the default) or
 * kept as views, and the extensions the project adds to the list (`assets`) or takes out of it
 * (`pages`). Plain arrays, as the rule travels to the parse threads in messages.
 */
export interface AssetRule {
  skipAssets: boolean;
  assets?: string[];
  pages?: string[];
}

/** The columns of a project row the rule is read from. */
export interface AssetSettings {
  skip_assets?: number;
  asset_extensions?: string;
}

/** A project's asset rule from its row (`skip_assets` is 1 unless the operator turned it off). */
export function assetRuleOf(project: AssetSettings): AssetRule {
  const changes = (project.asset_extensions ?? '').split(' ').filter(Boolean);
  const rule: AssetRule = { skipAssets: project.skip_assets !== 0 };
  const assets = changes.filter((change) => change.startsWith('+')).map((change) => change.slice(1));
  const pages = changes.filter((change) => change.startsWith('-')).map((change) => change.slice(1));
  if (assets.length > 0) rule.assets = assets;
  if (pages.length > 0) rule.pages = pages;
  return rule;
}

/** The summary reason for a skipped asset request, shared by import, tail, drains and proxy. */
export const assetReason = 'static asset (not a page view)';

/** True when the rule drops this request. */
export function skipsAsset(rule: AssetRule, path: string, contentType?: string | null): boolean {
  return rule.skipAssets && isAsset(path, contentType, rule);
}
