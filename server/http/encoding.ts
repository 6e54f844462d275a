/**
 * Whether an `Accept-Encoding` header accepts gzip: listed (or `*`) without `q=0`
 * (RFC 9110 §12.5.3). Enough for the one precompressed answer the daemon sends.
 */
export function acceptsGzip(acceptEncoding: string): boolean {
  let gzip: boolean | undefined;
  let any = false;
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [coding = '', ...params] = part.split(';').map((piece) => piece.trim());
    const refused = params.some((param) => /^q=0(\.0{0,3})?$/.test(param));
    if (coding === 'gzip' || coding === 'x-gzip') gzip = !refused;
    else if (coding === '*') any = !refused;
  }
  return gzip ?? any;
}
