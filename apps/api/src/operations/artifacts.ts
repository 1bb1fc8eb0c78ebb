/**
 * GET /web/v1/artifacts/<hour>/<file>: files given out with binaryAs "url". Not a JSON operation (it
 * answers with the file's bytes), so it is mounted by routes/artifacts.ts and described in openapi.ts;
 * its path lives here with the interface's others.
 */
export const ARTIFACTS_PREFIX = "/web/v1/artifacts";
export const ARTIFACTS_ROUTE = `${ARTIFACTS_PREFIX}/:hour/:file`;
export const ARTIFACTS_OPENAPI_PATH = `${ARTIFACTS_PREFIX}/{hour}/{file}`;
