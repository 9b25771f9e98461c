# Quire in a container: `docker build -t quire .`, then
#   docker run -p 8080:8080 -v quire-data:/var/lib/quire -e QUIRE_PUBLIC_URL=https://quire.example.com quire
# Settings are environment variables (docs/configuration.md); the data (SQLite database, secret key,
# workspaces, mirrors) lives in the volume. docs/operations.md, "Run as a service", says more.

# Dependencies only, as package-lock.json pins them. Dev dependencies are left out: the pinned Node 24
# among them is the base image's own Node here.
FROM node:24-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev && npm cache clean --force

FROM node:24-slim
# git clones and pushes docs repositories for agent jobs and docs builds.
RUN apt-get update \
  && apt-get install --yes --no-install-recommends git ca-certificates \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system quire \
  && useradd --system --gid quire --home-dir /var/lib/quire --shell /usr/sbin/nologin quire \
  && mkdir -p /var/lib/quire \
  && chown quire:quire /var/lib/quire \
  && chmod 0700 /var/lib/quire
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json .npmrc ./
COPY bin ./bin
COPY src ./src
ENV NODE_ENV=production \
    HOME=/var/lib/quire \
    MALLOC_ARENA_MAX=2 \
    QUIRE_DATA_DIR=/var/lib/quire \
    HOST=0.0.0.0 \
    PORT=8080 \
    QUIRE_PUBLIC_URL=http://localhost:8080
USER quire
VOLUME /var/lib/quire
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
# Node itself is the container's main process: `docker stop` sends SIGTERM to it, and Quire finishes
# running jobs (QUIRE_SHUTDOWN_GRACE_SECONDS) before it exits.
ENTRYPOINT ["node", "--max-semi-space-size=16", "--heap-growing-percent=100", "bin/quire.js"]
CMD ["serve"]
