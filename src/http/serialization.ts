import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';

type Serializer = (data: unknown) => string;

// Building a response serializer (fast-json-stringify generates and compiles code per schema) was
// about two thirds of building the whole app, ~0.4 s of CPU, paid again by every app a process
// builds (every test file does). A serializer depends on nothing but its schema's content, and the
// routes share most of theirs (the same error shapes hundreds of times, spread into new objects),
// so one serializer per distinct schema text serves every route of every app in the process. The
// same options as Fastify's own compiler when no shared schemas are added (the app adds none).
const serializers = new Map<string, Serializer>();

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const text = JSON.stringify(schema);
  let serializer = serializers.get(text);
  if (!serializer) {
    serializer = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0], { schema: {} }) as Serializer;
    serializers.set(text, serializer);
  }
  return serializer;
};
