import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/http/errors.ts';
import { ErrorResponse, errorResponses } from '../../src/http/schemas.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { testApp, testContext } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

describe('error responses of an operation', () => {
  it('keys each code by its status and describes it from the registry', () => {
    const responses = errorResponses(['not_found', 'conflict', 'project_not_configured']);
    expect(Object.keys(responses)).toEqual(['404', '409']);
    expect(responses[404]).toMatchObject({ ...ErrorResponse, description: `\`not_found\`: ${errorCodes.not_found.meaning}` });
    expect(responses[409].description).toBe(
      `\`conflict\`: ${errorCodes.conflict.meaning} \`project_not_configured\`: ${errorCodes.project_not_configured.meaning}`,
    );
  });

  describe('in the served OpenAPI document', () => {
    let storage: Storage;
    let document: { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };

    beforeAll(async () => {
      storage = await testDatabases[0].open();
      const app = await testApp(testContext(storage));
      document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      await app.close();
    });
    afterAll(() => storage.close());

    it('describes every error response of every operation with the codes it stands for', () => {
      const statuses = new Set<string>(Object.values(errorCodes).map(({ status }) => String(status)));
      const undescribed = Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.entries(operations).flatMap(([method, operation]) =>
          Object.entries(operation.responses)
            // /readyz answers 503 with its own health body, not an error body.
            .filter(([status]) => statuses.has(status) && path !== '/readyz')
            .filter(([, response]) => !/^`[a-z_]+`: /.test(response.description))
            .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
        ),
      );
      expect(undescribed).toEqual([]);
    });
  });
});
