import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { buildOpenApiDocument } from '../../shared/contract/openapi.js';

const CONFIG = new URL('../../scripts/schemathesis.toml', import.meta.url);

/**
 * scripts/schemathesis.toml lets named operations answer 400 to requests the document calls
 * valid (rules a JSON Schema cannot state). A name that no longer matches an operation would
 * silently stop applying, and a pattern matching more than it says would hide refusals.
 */
describe('the Schemathesis settings name operations of the document', () => {
  const document = buildOpenApiDocument({ version: 'test' }) as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );

  it('every include-name is an operation, and every include-path-regex matches only payout callbacks', async () => {
    const text = await readFile(CONFIG, 'utf8');
    const names = [...text.matchAll(/"((?:GET|POST|PUT|PATCH|DELETE) \/v1\/[^"]*)"/g)].map((match) => match[1]);
    expect(names.length).to.be.greaterThan(10);
    for (const name of names) expect(operations, name).to.include(name);

    const patterns = [...text.matchAll(/^include-path-regex = "([^"]+)"$/gm)].map(
      (match) => new RegExp(match[1] ?? ''),
    );
    expect(patterns).to.have.length(1);
    for (const pattern of patterns) {
      const matched = Object.keys(document.paths).filter((path) => pattern.test(path));
      expect(matched, String(pattern)).to.have.length.greaterThan(0);
      for (const path of matched) expect(path, String(pattern)).to.match(/^\/v1\/integrations\/[a-z]+-payouts\//);
    }
  });
});
