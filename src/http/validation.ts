import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// verbose: errors carry their schema, so an unknown parameter's error can list the known ones, and a union of constants its values.
const common: Options = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false, verbose: true };

function withFormats(ajv: Ajv): Ajv {
  (addFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
  return ajv;
}

// Query strings, path parameters and headers arrive as text, so numbers there are coerced;
// JSON bodies are typed already, and `{"prompt": 42}` must be refused rather than become "42".
const textParts = withFormats(new Ajv({ ...common, coerceTypes: 'array' }));
const bodies = withFormats(new Ajv({ ...common, coerceTypes: false }));

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodies : textParts).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
