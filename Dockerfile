# syntax=docker/dockerfile:1
# One image for every Itinera service. Build: `docker build -t itinera:0.1.0 .`
#
# It runs the gateway by default (port 8080). The others are the same image with another command, from /app,
# where conf/, schemas/ and services/console/web/ are (shared/config/repo-root.ts finds them from package.json):
#   docker run itinera:0.1.0 node dist/services/console/main.js                      # the console, port 8090
#   docker run itinera:0.1.0 node dist/services/converter/main.js 0                  # a converter, worker number 0
#   docker run itinera:0.1.0 node dist/services/trip-builder/main.js 0               # a trip builder
#   docker run itinera:0.1.0 node dist/deploy/provision/cli.js                       # provisioning (topics, tables, schemas)
#   docker run itinera:0.1.0 node dist/deploy/kubernetes/wait-for-provisioning.js    # Kubernetes' init container
#   docker run -it itinera:0.1.0 node bin/itinera.mjs --help                         # operator commands
# Where the servers are: KAFKA_BROKERS, CASSANDRA_CONTACT_POINTS, CASSANDRA_LOCAL_DC, SCHEMA_REGISTRY_URL; other
# settings: mount a conf/ folder and set ITINERA_CONF_DIR, or the environment variables of docs/configuration.md.
# Every HTTP-less service (converter, trip builder, provisioning) must switch the gateway's HEALTHCHECK off
# (`--no-healthcheck`, or `healthcheck: disable: true` in compose); Kubernetes ignores it and uses its probes.

# The Node line the project is tested on: the current LTS, 26 (package.json engines; .ci/run runs the suite on it).
ARG NODE_IMAGE=node:26-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY services services
COPY shared shared
COPY deploy deploy
# tsc -p tsconfig.build.json: services/, shared/, deploy/ into dist/, tests left out.
RUN npm run build

FROM ${NODE_IMAGE} AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; none of them needs an install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# package.json marks the root the code resolves conf/, schemas/ and the console's pages from; node_modules also
# serves the console's Leaflet and Chart.js files (services/console/web-files.ts).
COPY --chown=root:root package.json package-lock.json ./
COPY --from=production-deps --chown=root:root /app/node_modules node_modules
COPY --from=build --chown=root:root /app/dist dist
COPY --chown=root:root bin bin
# conf/ holds the development defaults; a deployment mounts its own and sets ITINERA_CONF_DIR (deploy/kubernetes).
COPY --chown=root:root conf conf
COPY --chown=root:root schemas schemas
# The console's pages are served from the source tree at run time: tsc copies no HTML, CSS or browser JS.
COPY --chown=root:root services/console/web services/console/web
# Files belong to root and are read-only to the service, which runs as the image's unprivileged `node` user (uid
# 1000) and writes only its logs (conf/log: /var/tmp by default; standard output in compose and Kubernetes).
USER node
EXPOSE 8080 8090
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/services/gateway/main.js"]
