# The four images, one target each. Build from the repository root:
#   docker build --target api -t browserfleet/api .       (and --target jobs, operator, browser)
# Name a target: without one, docker builds the last stage, the browser image.
# (`npm run images` builds all four with podman, no Docker engine needed.)
# The build stage installs every dependency and bundles the four TypeScript programs (and the workspace
# packages they import) into dist/<program>/ with esbuild; the deps stage installs production dependencies
# only; each target is Node 24 on Debian bookworm with those and its own program's bundle, running as user
# 10001, and it runs on a read-only root filesystem given a writable /tmp (HOME and DATA_DIR point there).
# Every stage but the four targets is shared, so a layer cache runs it once for all four images.
ARG NODE_IMAGE=node:24-bookworm-slim

# The workspace's manifests alone (the root's, its lock, and every workspace's package.json), so the npm ci
# layers below are rebuilt only when one of them changes.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY package.json package-lock.json ./
COPY apps apps
COPY operator operator
COPY packages packages
RUN find apps packages -mindepth 2 -maxdepth 2 ! -name package.json -exec rm -rf {} + \
 && find operator -mindepth 1 -maxdepth 1 ! -name package.json -exec rm -rf {} +

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY --from=manifests /src ./
RUN --mount=type=cache,target=/root/.npm npm ci --prefer-offline --ignore-scripts --no-audit --no-fund
# Fixes to dependencies (patches/, what npm's postinstall applies outside images); the bundles below
# carry the patched linkedom and turndown, so the runtime stage's unpatched copies are never loaded, and the
# browser image takes the patched playwright-core from here.
COPY patches patches
RUN node_modules/.bin/patch-package
COPY packages packages
COPY apps apps
COPY operator operator
# One esbuild run bundles the four programs, each on its own into dist/<program>/ (esbuild without
# code splitting shares nothing between entry points, so each image carries its own bundle alone). The
# browser converts pages to markdown in worker threads, which load worker-entry.mjs beside main.mjs
# (packages/markdown's pool); the api, jobs and the operator import no markdown code.
RUN node -e "import('esbuild').then((e) => e.build({ \
      entryPoints: { \
        'api/main': 'apps/api/src/main.ts', \
        'jobs/main': 'apps/jobs/src/main.ts', \
        'operator/main': 'operator/src/main.ts', \
        'browser/main': 'apps/browser/src/main.ts', 'browser/worker-entry': 'packages/markdown/src/worker.ts', \
      }, \
      outdir: 'dist', bundle: true, platform: 'node', format: 'esm', target: 'node24', outExtension: { '.js': '.mjs' }, sourcemap: true, \
      banner: { js: 'import { createRequire as __bfRequire } from \"node:module\"; const require = __bfRequire(import.meta.url);' }, \
      plugins: [{ name: 'deps-external', setup(b) { b.onResolve({ filter: /^[^./]/ }, (a) => a.path.startsWith('@browserfleet/') || a.path === 'linkedom' || a.path === 'turndown' ? undefined : { external: true }); } }], \
    }))"

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /src ./
RUN --mount=type=cache,target=/root/.npm npm ci --prefer-offline --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/@browserfleet node_modules/.cache

# The user and environment of every image.
FROM ${NODE_IMAGE} AS base
RUN groupadd --gid 10001 fleet && useradd --uid 10001 --gid fleet --home-dir /tmp --shell /usr/sbin/nologin fleet
WORKDIR /app
# Two malloc arenas, not glibc's eight per core: Node's helper threads (libuv's pool, V8's GC threads) each
# took one, and the soak measured 18-24 MiB less resident memory per Node program with two (bench/README.md).
ENV NODE_ENV=production HOME=/tmp DATA_DIR=/tmp/data MALLOC_ARENA_MAX=2

# What every program needs at run time: production dependencies, and the migrations where packages/db
# looks for them (../migrations from the bundle in dist/).
FROM base AS runtime
COPY --from=deps /app/node_modules node_modules
# postgres.js with its patch (patches/): every program loads it from node_modules, and the deps stage installs
# it without patches. The patch keeps a connection PostgreSQL closed mid-write from ending the process.
COPY --from=build /src/node_modules/postgres node_modules/postgres
COPY --from=build /src/packages/db/migrations migrations
USER 10001:10001
CMD ["node", "--enable-source-maps", "dist/main.mjs"]

FROM runtime AS api
COPY --from=build /src/dist/api dist
EXPOSE 8080

FROM runtime AS jobs
COPY --from=build /src/dist/jobs dist
EXPOSE 9465

FROM runtime AS operator
COPY --from=build /src/dist/operator dist
EXPOSE 8081

# PostgreSQL for the chart's in-cluster database where no registry image can be pulled (npm run test:node):
# Debian's package, configured as the official image is (POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD,
# PGDATA; scripts/postgres-entrypoint.sh). It runs as uid 70, the chart's runAsUser (the official Alpine
# image's): initdb needs a user of that id. Built only when asked: `npm run images -- postgres`.
FROM ${NODE_IMAGE} AS postgres
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && groupmod -g 70 postgres && usermod -u 70 -g 70 postgres \
 && mkdir -p /var/run/postgresql /var/lib/postgresql/data \
 && chown -R 70:70 /var/run/postgresql /var/lib/postgresql
COPY scripts/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER 70:70
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]

# nats-server for the chart's in-cluster NATS where no registry image can be pulled (npm run test:node):
# the static binary built from its Go module (scripts/k8s-tools.sh nats), handed in as the build context
# nats-bin, on an empty image. The chart runs it with `-c /etc/nats/nats.conf`, as it would the official
# image. Built only when asked: `npm run images -- nats` (or: podman build --build-context
# nats-bin=.tools/bin --target nats .).
FROM scratch AS nats
COPY --from=nats-bin nats-server /nats-server
USER 10001:10001
EXPOSE 4222 6222 8222
ENTRYPOINT ["/nats-server"]

# The browser target installs Chromium before it takes the runtime's /app, so the large Chromium layer
# depends on the base alone and is not rebuilt when a dependency or a migration changes.
FROM base AS browser
# Chromium and fonts from Debian (the worker finds /usr/bin/chromium); tini reaps Chromium's children.
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji fonts-noto-cjk tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
COPY --from=runtime /app /app
# playwright-core with its patch (patches/): the worker loads it from node_modules, and the runtime's copy is
# installed without patches. The patch gives Chromium a list of languages as Accept-Language (location).
COPY --from=build /src/node_modules/playwright-core node_modules/playwright-core
COPY --from=build /src/dist/browser dist
USER 10001:10001
EXPOSE 9464
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--enable-source-maps", "dist/main.mjs"]
