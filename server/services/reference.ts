import { buildOpenApiDocument } from '../../shared/contract/openapi.js';
import { VERSION } from '../../shared/version.js';

export interface ReferenceService {
  /** `GET /v1/openapi.json`: generated from the route contract once, then served as is. */
  openApi(): Record<string, unknown>;
  /** `GET /docs`: the reference page; its scripts and styles are served by the daemon itself. */
  docsPage(): string;
}

export const DOCS_ASSETS_PATH = '/docs/assets';

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>affiliated API reference</title>
<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png">
</head>
<body>
<div id="reference"></div>
<script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSETS_PATH}/init.js"></script>
</body>
</html>
`;

export function referenceService(): ReferenceService {
  let document: Record<string, unknown> | undefined;
  return {
    openApi() {
      document ??= buildOpenApiDocument({ version: VERSION });
      return document;
    },
    docsPage: () => DOCS_PAGE,
  };
}
