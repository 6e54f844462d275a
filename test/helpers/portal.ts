import { request } from 'undici';

/** A portal page as a browser without JavaScript gets it. */
export interface PortalReply {
  status: number;
  html: string;
  location: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A browser of the portal over real HTTP, without JavaScript: it keeps cookies (per name; the
 * daemon scopes them to one campaign's path), follows nothing by itself, and fills in the CSRF
 * token of the last page it read and its own Origin, as a browser's form does.
 */
export class PortalBrowser {
  readonly cookies = new Map<string, string>();
  lastToken = '';

  constructor(
    readonly origin: string,
    readonly base: string,
    readonly language = 'en',
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(setCookie: string | string[] | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair = ''] = line.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/max-age=0|expires=Thu, 01 Jan 1970/i.test(line) || value.join('=') === '') this.cookies.delete(name);
      else this.cookies.set(name, value.join('='));
    }
  }

  async send(
    method: 'GET' | 'POST',
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<PortalReply> {
    const res = await request(`${this.origin}${this.base}${path}`, {
      method,
      headers: {
        cookie: this.cookieHeader(),
        'accept-language': this.language,
        ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin }),
        ...headers,
      },
      body,
    });
    const html = await res.body.text();
    this.keep(res.headers['set-cookie']);
    const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token) this.lastToken = token;
    const location = res.headers.location;
    return {
      status: res.statusCode,
      html,
      location: typeof location === 'string' ? location : undefined,
      headers: res.headers,
    };
  }

  get(path: string): Promise<PortalReply> {
    return this.send('GET', path);
  }

  /** Posts a form with this browser's token (unless `csrf` is given) and Origin. */
  post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PortalReply> {
    const form = new URLSearchParams({ csrf: this.lastToken, ...fields });
    return this.send('POST', path, form.toString(), headers);
  }

  /** The session cookie's value (the id the daemon knows only by its hash). */
  get session(): string | undefined {
    return this.cookies.get('affiliated_session');
  }
}

/** The text of an HTML page, tags removed and entities of the template engine decoded. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
